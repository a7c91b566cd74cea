import { createActor, type Actor } from "xstate";
import type { Db } from "../../db";
import type { Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import {
  createAccountMachine,
  type AccountOperation,
  type OperationInput,
  type OperationOutput,
} from "./account-machine";
import {
  claimFaucetInDb,
  readAccount,
  type BuyInOutcome,
  type CashoutOutcome,
  type LedgerRefs,
  type PairBuyInOutcome,
  type PairSeatRefs,
  type SeatCashout,
  type SeatLedger,
  type SeatRefs,
} from "./ledger";
import { nextClaimAt } from "./faucet";

export interface AccountsDeps {
  db: Db;
  clock: Clock;
  /** Buy-ins and cashouts around the table module's seat rows (tables/seat-rows.ts `SEAT_LEDGER`). */
  seats: SeatLedger;
  faucetAmount: number;
  faucetCooldownMs: number;
  idleMs: number;
  log?: (message: string, error?: unknown) => void;
}

export interface FaucetClaimResult {
  success: boolean;
  amount: number;
  newBalance: number;
  nextClaimAt: string;
}

export interface BalanceView {
  balance: number;
  canClaimFaucet: boolean;
  nextFaucetClaim: string | null;
}

type AccountActor = Actor<ReturnType<typeof createAccountMachine>>;

/**
 * The credits service: one XState account actor per developer serialises that developer's
 * balance operations in this process; the guarded SQL in ./ledger keeps money correct across
 * processes. Actors are created on demand from database rows and retire when idle.
 */
export class Accounts {
  private readonly actors = new Map<string, Promise<AccountActor>>();
  private readonly machine: ReturnType<typeof createAccountMachine>;
  private stopped = false;

  constructor(private readonly deps: AccountsDeps) {
    this.machine = createAccountMachine({
      now: () => deps.clock.now(),
      cooldownMs: deps.faucetCooldownMs,
      idleMs: deps.idleMs,
      runOperation: (input) => this.runOperation(input),
    });
  }

  async balance(developerId: string): Promise<BalanceView> {
    const account = await readAccount(this.deps.db, developerId);
    const nextClaimAt = this.nextClaim(account.lastFaucetAt?.getTime() ?? null);
    const claimable = nextClaimAt === null || nextClaimAt <= this.deps.clock.now();
    return {
      balance: account.balance,
      canClaimFaucet: claimable,
      nextFaucetClaim: claimable ? null : new Date(nextClaimAt!).toISOString(),
    };
  }

  /** Resolves with the claim result; during cooldown rejects with a 429 carrying the same result shape. */
  claimFaucet(developerId: string): Promise<FaucetClaimResult> {
    return this.enqueue(developerId, { kind: "claim" }) as Promise<FaucetClaimResult>;
  }

  buyIn(developerId: string, amount: number, refs: SeatRefs): Promise<BuyInOutcome> {
    return this.enqueue(developerId, { kind: "buyIn", amount, refs }) as Promise<BuyInOutcome>;
  }

  cashout(developerId: string, seatId: number, chips: number, refs: LedgerRefs): Promise<CashoutOutcome> {
    return this.enqueue(developerId, { kind: "cashout", seatId, chips, refs }) as Promise<CashoutOutcome>;
  }

  /** One bot's buy-ins at both copies of a duplicate pair: one transaction, both or neither (ledger.ts `buyInPairInDb`). */
  buyInPair(developerId: string, amount: number, refs: PairSeatRefs): Promise<PairBuyInOutcome> {
    return this.enqueue(developerId, { kind: "buyInPair", amount, refs }) as Promise<PairBuyInOutcome>;
  }

  /** One bot's two seats at a waiting duplicate pair, refunded in one transaction. */
  cashoutPair(developerId: string, seats: [SeatCashout, SeatCashout]): Promise<CashoutOutcome[]> {
    return this.enqueue(developerId, { kind: "cashoutPair", seats }) as Promise<CashoutOutcome[]>;
  }

  /** How many account actors are alive (for tests and metrics). */
  get liveActors(): number {
    return this.actors.size;
  }

  async stopAll(): Promise<void> {
    this.stopped = true;
    const actors = await Promise.allSettled(this.actors.values());
    for (const result of actors) if (result.status === "fulfilled") result.value.stop();
    this.actors.clear();
  }

  private async enqueue(developerId: string, operation: AccountOperation): Promise<unknown> {
    if (this.stopped) throw new AppError(503, "INTERNAL", "The service is shutting down");
    let actor = await this.actorFor(developerId);
    // A retired actor has left the map already; one that stopped some other way is replaced too.
    if (actor.getSnapshot().status !== "active") {
      this.actors.delete(developerId);
      actor = await this.actorFor(developerId);
    }
    return new Promise((resolve, reject) => {
      actor.send({ type: "ENQUEUE", item: { operation, resolve, reject } });
    });
  }

  private actorFor(developerId: string): Promise<AccountActor> {
    const existing = this.actors.get(developerId);
    if (existing) return existing;
    const created = this.createActor(developerId);
    this.actors.set(developerId, created);
    created.catch(() => {
      if (this.actors.get(developerId) === created) this.actors.delete(developerId);
    });
    return created;
  }

  private async createActor(developerId: string): Promise<AccountActor> {
    const account = await readAccount(this.deps.db, developerId);
    const actor = createActor(this.machine, {
      input: { developerId, lastFaucetAt: account.lastFaucetAt?.getTime() ?? null },
      clock: this.deps.clock,
    });
    const registered = this.actors.get(developerId);
    const forget = () => {
      if (this.actors.get(developerId) === registered) this.actors.delete(developerId);
    };
    actor.subscribe({
      complete: forget,
      error: (error) => {
        forget();
        this.deps.log?.(`account actor ${developerId} failed`, error);
      },
    });
    actor.start();
    return actor;
  }

  private async runOperation({ developerId, operation, lastFaucetAt }: OperationInput): Promise<OperationOutput> {
    const now = new Date(this.deps.clock.now());
    switch (operation.kind) {
      case "claim":
        return this.claim(developerId, lastFaucetAt, now);
      case "buyIn":
        return { reply: await this.deps.seats.buyInInDb(this.deps.db, developerId, operation.amount, operation.refs, now) };
      case "buyInPair":
        return { reply: await this.deps.seats.buyInPairInDb(this.deps.db, developerId, operation.amount, operation.refs, now) };
      case "cashout":
        return {
          reply: await this.deps.seats.cashoutInDb(this.deps.db, developerId, operation.seatId, operation.chips, operation.refs, now),
        };
      case "cashoutPair":
        return { reply: await this.deps.seats.cashoutPairInDb(this.deps.db, developerId, operation.seats, now) };
    }
  }

  /** The actor's own view answers a claim during cooldown; otherwise the guarded UPDATE decides. */
  private async claim(developerId: string, lastFaucetAt: number | null, now: Date): Promise<OperationOutput> {
    const { faucetAmount, faucetCooldownMs, db } = this.deps;
    const knownNextClaim = this.nextClaim(lastFaucetAt);
    if (knownNextClaim !== null && knownNextClaim > now.getTime()) {
      const { balance } = await readAccount(db, developerId);
      return { failure: this.cooldownError(balance, knownNextClaim, now.getTime()) };
    }
    const outcome = await claimFaucetInDb(db, developerId, faucetAmount, faucetCooldownMs, now);
    const claimedAt = outcome.lastFaucetAt?.getTime() ?? null;
    const nextClaimAt = this.nextClaim(claimedAt) ?? now.getTime();
    if (!outcome.granted) {
      return { failure: this.cooldownError(outcome.balance, nextClaimAt, now.getTime()), lastFaucetAt: claimedAt };
    }
    const result: FaucetClaimResult = {
      success: true,
      amount: faucetAmount,
      newBalance: outcome.balance,
      nextClaimAt: new Date(nextClaimAt).toISOString(),
    };
    return { reply: result, lastFaucetAt: claimedAt };
  }

  private cooldownError(balance: number, nextClaimAt: number, now: number): AppError {
    const retryAfterSeconds = Math.max(1, Math.ceil((nextClaimAt - now) / 1000));
    const refused: FaucetClaimResult = {
      success: false,
      amount: 0,
      newBalance: balance,
      nextClaimAt: new Date(nextClaimAt).toISOString(),
    };
    return new AppError(
      429,
      "FAUCET_COOLDOWN",
      `The faucet can be claimed again at ${refused.nextClaimAt}`,
      { nextClaimAt: refused.nextClaimAt },
      { "Retry-After": String(retryAfterSeconds) },
      { ...refused },
    );
  }

  private nextClaim(lastFaucetAt: number | null): number | null {
    return nextClaimAt(lastFaucetAt, this.deps.faucetCooldownMs);
  }
}
