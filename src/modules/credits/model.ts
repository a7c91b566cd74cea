import { t } from "elysia";
import { idString, oneOf } from "../../lib/http";
import { pageLimit } from "../../lib/paging";

/** The brief's Balance object. */
export const Balance = t.Object(
  {
    balance: t.Integer({ description: "Current credits" }),
    canClaimFaucet: t.Boolean(),
    nextFaucetClaim: t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "When the next claim is possible; null when a claim is possible now",
    }),
  },
  { title: "Balance" },
);

/** The brief's Faucet claim result. */
export const FaucetClaimResult = t.Object(
  {
    success: t.Boolean(),
    amount: t.Integer({ description: "Credits granted by the claim (0 when refused)" }),
    newBalance: t.Integer({ description: "Balance after the claim" }),
    nextClaimAt: t.String({ format: "date-time", description: "When the next claim becomes possible" }),
  },
  { title: "FaucetClaim" },
);

export const FaucetCooldown = t.Object(
  {
    success: t.Literal(false),
    amount: t.Literal(0),
    newBalance: t.Integer(),
    nextClaimAt: t.String({ format: "date-time" }),
    error: t.Object({ code: t.Literal("FAUCET_COOLDOWN"), message: t.String(), details: t.Optional(t.Unknown()) }),
  },
  {
    title: "FaucetCooldown",
    description: "429 during cooldown: still a Faucet claim result (success false, amount 0, balance unchanged) plus the error object. A Retry-After header gives the seconds to wait.",
  },
);

export const Transaction = t.Object(
  {
    transactionId: t.String(),
    type: oneOf(["faucet", "buy_in", "cashout"]),
    amount: t.Integer({ description: "faucet: +FAUCET_AMOUNT; buy_in: −buyIn; cashout: +remaining chips (0 when busted)" }),
    balanceAfter: t.Integer({ description: "The developer's balance right after this transaction" }),
    botId: t.Union([t.String(), t.Null()]),
    tableId: t.Union([t.String(), t.Null()]),
    matchId: t.Union([t.String(), t.Null()]),
    createdAt: t.String({ format: "date-time" }),
  },
  { title: "Transaction" },
);

export const TransactionsQuery = t.Object(
  {
    limit: t.Optional(pageLimit()),
    before: t.Optional(idString({ description: "A transactionId: return only older transactions (the cursor of the `Link` rel=next header)" })),
  },
  { additionalProperties: false },
);
