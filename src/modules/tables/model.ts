import { LADDER_FORMATS } from "../../db/schema";
import { t } from "elysia";
import { TableConfig as TableConfigSchema } from "@poker-bots/protocol";
import { pageLimit } from "../../lib/paging";
import { bodyInteger, idString, oneOf, plainText } from "../../lib/http";
import { BotId } from "../bots/model";

export const CreateTableBody = t.Object(
  {
    buyIn: t.Optional(bodyInteger({ minimum: 1, maximum: 1_000_000_000, description: "Chips each bot buys in with; default DEFAULT_BUY_IN (see POST /api/tables)" })),
    smallBlind: t.Optional(bodyInteger({ minimum: 1, maximum: 1_000_000_000, description: "Default 5" })),
    bigBlind: t.Optional(bodyInteger({ minimum: 1, maximum: 1_000_000_000, description: "Default 10; at least smallBlind, at most buyIn" })),
    maxPlayers: t.Optional(bodyInteger({ minimum: 2, maximum: 10, description: "Seats; the match starts when all are taken. Default 6" })),
    maxHands: t.Optional(bodyInteger({ minimum: 1, maximum: 100_000, description: "The match ends after this many hands at the latest. Default 200" })),
    actionTimeoutMs: t.Optional(bodyInteger({ minimum: 50, maximum: 120_000, description: "Per-action time for remote bots, before the time bank. Default 2000" })),
    seed: t.Optional(plainText({ minLength: 1, maxLength: 128, description: "Deal from a seeded PRNG: the same seed reproduces every card (replays, tests). Makes the table private to your own bots and keeps its matches out of every ranking" })),
    resetStacks: t.Optional(
      bodyInteger({
        minimum: 1,
        maximum: 1_000_000_000,
        description:
          "Stacks reset every hand (the ACPC's convention): every hand starts with this many chips in front of every seat. The buy-in is then each bot's bankroll (at least one full stack): a hand's result moves chips between bankrolls, the match ends at maxHands or before a hand some bankroll cannot cover with a full stack (or that a leaving bot would sit out), so the players never change mid-match, and each bot is cashed out its remaining bankroll. At least bigBlind, at most buyIn",
      }),
    ),
    duplicate: t.Optional(
      t.Boolean({
        description:
          "Heads-up only (maxPlayers 2): a duplicate match, two ordinary matches at two twin tables (variance control, as the ACPC does). Copy 2 seats every bot at the other seat and deals hand n from copy 1's hand-n deck; nothing else is shared. The answer is copy 1's table (`twinTableId` names copy 2); a join at either seats the bot at both. Only bots the service runs (built-ins, hosted bots) sit there (409 REMOTE_BOT_AT_DUPLICATE_TABLE), and only your own (403 DUPLICATE_TABLE_PRIVATE)",
      }),
    ),
  },
  { additionalProperties: false, title: "CreateTableRequest", examples: [{ maxPlayers: 2, maxHands: 200, buyIn: 1000, smallBlind: 5, bigBlind: 10 }] },
);

/** The table config's one definition (packages/protocol), titled for the OpenAPI document. */
export const TableConfig = t.Object(TableConfigSchema.properties, { title: "TableConfig" });

export const Seat = t.Object(
  {
    seat: t.Integer({ description: "Seat number at the table, 0-based" }),
    botId: t.String(),
    chips: t.Integer({ description: "Chips in front of the bot (during a match: after the last completed hand)" }),
    leaving: t.Boolean({ description: "Asked to leave: folds from now on and is cashed out after the current hand" }),
  },
  { title: "Seat" },
);

/** POST /api/tables/:tableId/join's answer: the seat, and a warning when the bot will not be there to play. */
export const JoinedSeat = t.Object(
  {
    ...Seat.properties,
    warning: t.Optional(
      t.Object(
        {
          code: t.Literal("BOT_NOT_CONNECTED"),
          message: t.String(),
        },
        { description: "The seat is taken as asked, but the bot is a remote bot connected to no node: every request times out (checked, else folded) until it connects. Absent when it is connected, hosted or built in." },
      ),
    ),
  },
  { title: "JoinedSeat" },
);

export const Table = t.Object(
  {
    tableId: t.String(),
    config: TableConfig,
    seeded: t.Boolean({ description: "Deals from a seed: only the creator's bots may join; its matches are never ranked" }),
    deckCommitment: t.Union([t.String(), t.Null()], {
      description: "While a match runs: lowercase hex SHA-256 of the secret every deck derives from; the secret is revealed by GET /api/matches/{matchId}/fairness after the match (null: no match running, or seeded)",
    }),
    status: oneOf(["waiting", "running", "finished", "aborted", "closed"] as const, { description: "closed: deleted by its creator before any match (every seat refunded)" }),
    seats: t.Array(Seat),
    matchId: t.Union([t.String(), t.Null()]),
    handsPlayed: t.Integer(),
    createdAt: t.String({ format: "date-time" }),
    ladder: t.Union([oneOf(LADDER_FORMATS), t.Null()], { description: "A table the ladder made, in this format (its match is rated); null: a table a developer made" }),
    twinTableId: t.Union([t.String(), t.Null()], {
      description: "A copy of a duplicate pair (`config.duplicate`): the other copy's table. A join at either copy seats the bot at both; null for every other table",
    }),
    copy: t.Union([t.Literal(1), t.Literal(2), t.Null()], {
      description: "Which copy of a duplicate pair this table plays: 1, or 2 (every bot at the other seat, hand n dealt from copy 1's hand-n deck); null for every other table",
    }),
  },
  { title: "Table" },
);

export const TableParams = t.Object({ tableId: idString() });
export const LobbyQuery = t.Object(
  { limit: t.Optional(pageLimit()), before: t.Optional(idString({ description: "A tableId: only tables created before it (the cursor of the `Link` rel=next header)" })) },
  { additionalProperties: false },
);
export const SeatBody = t.Object({ botId: BotId }, { additionalProperties: false, title: "SeatRequest" });

export const LeaveResult = t.Object({
  tableId: t.String(),
  botId: t.String(),
  status: oneOf(["left", "leaving"] as const, {
    description: "left: cashed out now (waiting table); leaving: folds from now on, cashed out after the current hand",
  }),
  cashout: t.Union([t.Integer(), t.Null()], { description: "Credits returned now (left), or null (leaving)" }),
}, { title: "LeaveResult" });

export const ClosedTable = t.Object(
  {
    tableId: t.String(),
    status: t.Literal("closed"),
    refunds: t.Array(t.Object({ botId: t.String(), cashout: t.Integer({ description: "Credits returned to the bot's owner (its buy-in)" }) }), {
      description: "Every bot that sat at the table, cashed out as a leave (one cashout transaction each)",
    }),
  },
  { title: "ClosedTable" },
);
