/**
 * The faucet's cooldown rule, in one place: a developer may claim again FAUCET_COOLDOWN_MS after
 * their last claim (at once, if they never claimed). The guarded UPDATE in ledger.ts decides,
 * with claimableBefore; the account actor and the answers only predict it, with nextClaimAt.
 */
export function nextClaimAt(lastFaucetAt: number | null, cooldownMs: number): number | null {
  return lastFaucetAt === null ? null : lastFaucetAt + cooldownMs;
}

/** A claim is granted only if the last one was before this instant. */
export function claimableBefore(now: Date, cooldownMs: number): Date {
  return new Date(now.getTime() - cooldownMs);
}
