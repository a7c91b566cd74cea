/**
 * A table's configuration, defined once: the server stores it (tables.config), answers it over
 * HTTP (GET /api/tables/…) and sends it to bots. The only real difference between those is the
 * seed, which deals every card: only the table's creator ever reads it, so bots and spectators get
 * PublicTableConfig, the same config without it.
 */
import { Type as T, type Static } from "@sinclair/typebox";
import { Int } from "./kit";

export const TableConfig = T.Object(
  {
    buyIn: Int(),
    smallBlind: Int(),
    bigBlind: Int(),
    maxPlayers: Int(),
    maxHands: Int(),
    actionTimeoutMs: Int(),
    seed: T.Optional(T.String({ description: "Deals from a seeded PRNG (replays, tests). Only in the creator's own read of the table" })),
    resetStacks: T.Optional(
      Int("Every hand starts with this stack in front of every seat (the ACPC's convention); the buy-in is the bankroll hands win and lose, and the match ends when a bankroll cannot cover a full stack. Sent only when set"),
    ),
    duplicate: T.Optional(T.Boolean({ description: "Heads-up: one copy of a duplicate match, two matches at twin tables (the other deals the same decks, seats swapped: variance control); sent only when true" })),
  },
  { description: "The table's configuration" },
);
export type TableConfig = Static<typeof TableConfig>;

/** Strict for the protocol: a seed that leaked into a message would fail tests/protocol/schema.test.ts. */
export const PublicTableConfig = T.Omit(TableConfig, ["seed"], { additionalProperties: false, description: "The table's configuration (never its seed)" });
export type PublicTableConfig = Static<typeof PublicTableConfig>;
