/**
 * Competitions (issue 37): challenges and tournaments. Re-exported by schema.ts, so drizzle and
 * every query see one schema. No money is here: entries are ordinary seats, paid by buy-ins and
 * cashouts in the ledger (schema.ts `transactions`, `seats`).
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** A bot open to challenges (PUT /api/bots/:botId/challenges): its row exists while open, with the largest buy-in its owner accepts. */
export const challengeOffers = pgTable(
  "challenge_offers",
  {
    botId: text("bot_id").primaryKey(),
    maxBuyIn: bigint("max_buy_in", { mode: "number" }).notNull(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [check("challenge_offers_max_buy_in_positive", sql`${t.maxBuyIn} > 0`)],
);

export const TOURNAMENT_KINDS = ["sit-and-go", "round-robin"] as const;
export type TournamentKind = (typeof TOURNAMENT_KINDS)[number];
export const TOURNAMENT_STATUSES = ["registering", "running", "finished", "cancelled"] as const;
export type TournamentStatus = (typeof TOURNAMENT_STATUSES)[number];

export const tournaments = pgTable(
  "tournaments",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: TOURNAMENT_KINDS }).notNull(),
    createdBy: text("created_by").notNull(),
    /** The event's settings as created (a sit-and-go: seats, buyIn, blindLevels, handCap). */
    settings: jsonb("settings").$type<Record<string, unknown>>().notNull(),
    /**
     * A round robin's is set by its director (competitions/round-robin.ts). A sit-and-go's status follows its table's (waiting: registering, running, finished, closed:
     * cancelled); it is brought up to date before any read (competitions/tournaments.ts `refreshStatuses`).
     */
    status: text("status", { enum: TOURNAMENT_STATUSES }).notNull(),
    /** A sit-and-go's one table. */
    tableId: text("table_id"),
    /** Frozen when the event finishes (a sit-and-go: its places with their cashouts); null before. */
    results: jsonb("results").$type<unknown>(),
    createdAt: instant("created_at").notNull(),
    /** A round robin: when one node (the competitions role) starts it; null: by its creator (POST …/start). */
    startsAt: instant("starts_at"),
    /** A round robin: the round being played (0 before the start). */
    currentRound: integer("current_round").notNull().default(0),
  },
  (t) => [index("tournaments_listing_idx").on(t.status, t.kind, t.id), check("tournaments_kind_valid", sql`${t.kind} in ('sit-and-go', 'round-robin')`)],
);

/** A bot entered in a tournament (one bot per developer per event); a withdrawal deletes the row. */
export const tournamentEntries = pgTable(
  "tournament_entries",
  {
    tournamentId: text("tournament_id")
      .notNull()
      .references(() => tournaments.id),
    botId: text("bot_id").notNull(),
    developerId: text("developer_id").notNull(),
    enteredAt: instant("entered_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tournamentId, t.botId] }), uniqueIndex("tournament_entries_one_per_developer").on(t.tournamentId, t.developerId)],
);

/**
 * A hosted round robin's round: one deck secret every match of the round deals from (hand n of each
 * match from the same deck n), committed before the round's first match and revealed only when its
 * last match has ended (docs/FAIRNESS.md). Sealed like a running match's secret (match-host/deck-seal.ts).
 */
export const tournamentRounds = pgTable(
  "tournament_rounds",
  {
    tournamentId: text("tournament_id")
      .notNull()
      .references(() => tournaments.id),
    round: integer("round").notNull(),
    deckCommitment: text("deck_commitment"),
    deckSecretSealed: text("deck_secret_sealed"),
    /** Set when every match of the round has ended (the sealed copy is cleared then). */
    deckSecret: text("deck_secret"),
    startedAt: instant("started_at").notNull(),
    endedAt: instant("ended_at"),
  },
  (t) => [primaryKey({ columns: [t.tournamentId, t.round] })],
);

/** A round robin's scheduled match: its round, its pair (seat order), its table (and twin, hosted), and how it ended. */
export const tournamentMatches = pgTable(
  "tournament_matches",
  {
    tournamentId: text("tournament_id")
      .notNull()
      .references(() => tournaments.id),
    round: integer("round").notNull(),
    botA: text("bot_a").notNull(),
    botB: text("bot_b").notNull(),
    /** null until the round starts; the table of the match (copy 1 of a hosted duplicate pair). */
    tableId: text("table_id"),
    /** scheduled → playing → played | forfeit (a bot whose owner could not pay at its start, `forfeitedBy`). */
    status: text("status", { enum: ["scheduled", "playing", "played", "forfeit"] }).notNull(),
    forfeitedBy: text("forfeited_by"),
  },
  (t) => [primaryKey({ columns: [t.tournamentId, t.round, t.botA] }), index("tournament_matches_table_idx").on(t.tableId)],
);
