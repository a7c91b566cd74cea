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
    blindLevels: T.Optional(
      T.Array(T.Object({ hands: Int("Hands this level lasts (the last level lasts to the end)"), smallBlind: Int(), bigBlind: Int() }, { additionalProperties: false }), {
        minItems: 1,
        description: "Rising blinds (a sit-and-go): hand n plays at the level its number falls in, counted from hand 1; smallBlind/bigBlind above are the first level's. Each hand_started says the hand's blinds",
      }),
    ),
    unrated: T.Optional(T.Boolean({ description: "A challenge match: never rated (no OpenSkill change), counted in statistics like any match that moves credits; sent only when true" })),
    dealRound: T.Optional(
      T.Object({ tournamentId: T.String(), round: Int() }, { additionalProperties: false, description: "A hosted round robin's match: it deals from its round's one committed secret (every match of the round the same decks), revealed when the round's last match ends" }),
    ),
    tournamentId: T.Optional(T.String({ description: "The tournament this table plays (GET /api/tournaments/{id}): its seats are taken by entering the tournament" })),
  },
  { description: "The table's configuration" },
);
export type TableConfig = Static<typeof TableConfig>;

/** Strict for the protocol: a seed that leaked into a message would fail tests/protocol/schema.test.ts. */
export const PublicTableConfig = T.Omit(TableConfig, ["seed"], { additionalProperties: false, description: "The table's configuration (never its seed)" });
export type PublicTableConfig = Static<typeof PublicTableConfig>;
