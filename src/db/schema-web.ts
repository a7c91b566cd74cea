/**
 * The web for developers (issue 39): browser sessions, and each rated match's rating per bot (the
 * bot page's "Rating over time" and its results by opponent). Re-exported by schema.ts, so drizzle
 * and every query see one schema.
 */
import { bigint, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * A signed-in browser. The cookie carries a random secret; only its SHA-256 is stored (a database
 * dump signs nobody in). Sign-out sets `revoked_at`: every node reads the row on each request, so
 * the session ends everywhere at once. Expired or revoked rows are useless and may be deleted.
 */
export const webSessions = pgTable(
  "web_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    developerId: text("developer_id").notNull(),
    createdAt: instant("created_at").notNull(),
    expiresAt: instant("expires_at").notNull(),
    revokedAt: instant("revoked_at"),
  },
  (t) => [index("web_sessions_developer_idx").on(t.developerId)],
);

/**
 * Each bot's rating after each rated match it played (in rated_seq order), with its results in that
 * match (hands and the sums of its per-hand results, raw and adjusted): the rating's history and
 * the results against each opponent. Derived data, written with bot_ratings in the same transaction
 * and rebuilt with it by `bun run ratings:rebuild`.
 */
export const botRatingHistory = pgTable(
  "bot_rating_history",
  {
    botId: text("bot_id").notNull(),
    matchId: text("match_id").notNull(),
    ratedSeq: bigint("rated_seq", { mode: "number" }).notNull(),
    mu: doublePrecision("mu").notNull(),
    sigma: doublePrecision("sigma").notNull(),
    hands: integer("hands").notNull(),
    sumBb: doublePrecision("sum_bb").notNull(),
    sumBbSquared: doublePrecision("sum_bb_squared").notNull(),
    sumAdjustedBb: doublePrecision("sum_adjusted_bb").notNull(),
    sumAdjustedBbSquared: doublePrecision("sum_adjusted_bb_squared").notNull(),
  },
  // One index, the key: a bot's points in rating order (each rated match takes its own rated_seq, so
  // a bot has one row a seq). A match's other players are found through match_players (ratings/service.ts
  // byOpponent), so neither a key by (bot, match) nor an index by match is kept (migration 0023).
  (t) => [primaryKey({ columns: [t.botId, t.ratedSeq] })],
);
