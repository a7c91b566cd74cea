import type { Config } from "../../config";
import { Elysia, t } from "elysia";
import type { Db } from "../../db";
import { errorResponses, humanDuration } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { IdempotencyHeaders, type IdempotencyKeys } from "../../plugins/idempotency";
import { Balance, FaucetClaimResult, FaucetCooldown, Transaction, TransactionsQuery } from "./model";
import type { Accounts } from "./service";
import { listTransactions } from "./transactions";

export function creditsModule(db: Db, accounts: Accounts, auth: AuthOptions, keys: IdempotencyKeys, config: Pick<Config, "faucetAmount" | "faucetCooldownMs">) {
  const cooldown = humanDuration(config.faucetCooldownMs);
  return new Elysia({ name: "module:credits" })
    .use(authPlugin(auth))
    .get("/api/me/balance", ({ developerId }) => accounts.balance(developerId), {
      auth: true,
      response: { 200: Balance, ...errorResponses(401) },
      detail: {
        tags: ["credits"],
        summary: "The caller's balance and faucet state",
        description: "canClaimFaucet true and nextFaucetClaim null when a claim is possible; otherwise false and the time it becomes possible.",
      },
    })
    .post("/api/me/balance/faucet", ({ developerId, set, request, headers }) => keys.once({ developerId, request, headers, set }, () => accounts.claimFaucet(developerId)), {
      auth: true,
      headers: IdempotencyHeaders,
      response: { 200: FaucetClaimResult, 429: FaucetCooldown, ...errorResponses(400, 401, 409, 422) },
      detail: {
        tags: ["credits"],
        summary: "Claim the faucet",
        description:
          `Grants FAUCET_AMOUNT (${config.faucetAmount.toLocaleString("en-US")}) credits once per FAUCET_COOLDOWN_MS (${cooldown}) and writes a faucet transaction; nextClaimAt = claim time + ${cooldown}. A brand-new developer can claim at once. During cooldown: 429 with Retry-After and a claim result with success false.`,
      },
    })
    .get("/api/me/transactions", async ({ developerId, query, set }) =>
      withNextLink(set, await listTransactions(db, developerId, query), "/api/me/transactions", (before) => ({ limit: query.limit, before })), {
      auth: true,
      query: TransactionsQuery,
      response: { 200: t.Array(Transaction), ...errorResponses(400, 401) },
      detail: {
        tags: ["credits"],
        summary: "The caller's transactions",
        description:
          `Newest first (ties broken by transactionId descending). ${PAGING_RULE} The cursor is \`before\`, a transactionId: the next, older page.`,
      },
    });
}
