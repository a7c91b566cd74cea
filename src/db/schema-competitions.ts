/**
 * Competitions (issue 37): challenges and tournaments. Re-exported by schema.ts, so drizzle and
 * every query see one schema. No money is here: entries are ordinary seats, paid by buy-ins and
 * cashouts in the ledger (schema.ts `transactions`, `seats`).
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

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
     * A sit-and-go's status follows its table's (waiting: registering, running, finished, closed:
     * cancelled); it is brought up to date before any read (competitions/tournaments.ts `refreshStatuses`).
     */
    status: text("status", { enum: TOURNAMENT_STATUSES }).notNull(),
    /** A sit-and-go's one table. */
    tableId: text("table_id"),
    /** Frozen when the event finishes (a sit-and-go: its places with their cashouts); null before. */
    results: jsonb("results").$type<unknown>(),
    createdAt: instant("created_at").notNull(),
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
