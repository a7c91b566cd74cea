/**
 * Hosted bots (issue 27): the code a developer uploaded and what it logged. Re-exported by
 * schema.ts, so drizzle and every query see one schema.
 */
import { sql } from "drizzle-orm";
import { bigserial, check, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * Every uploaded version of a hosted bot's file. A bot is hosted from its first row; the current
 * version is the highest. `source` is what the developer uploaded (owner-only: bot code is its
 * author's secret), `bundled` the script the sandbox runs (the file bundled with the SDK's pure parts).
 */
export const botCodeVersions = pgTable(
  "bot_code_versions",
  {
    botId: text("bot_id").notNull(),
    version: integer("version").notNull(),
    sha256: text("sha256").notNull(),
    bytes: integer("bytes").notNull(),
    language: text("language", { enum: ["js", "ts"] }).notNull(),
    source: text("source").notNull(),
    bundled: text("bundled").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.botId, t.version] }), check("bot_code_versions_version_positive", sql`${t.version} >= 1`)],
);

/**
 * What a hosted bot logged in a match (`console.log` in the sandbox, capped per match) and every
 * decision that failed, with its hand number. Read by GET /api/bots/:botId/logs (owner only).
 */
export const hostedLogs = pgTable(
  "hosted_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    botId: text("bot_id").notNull(),
    matchId: text("match_id").notNull(),
    /** The code version that ran. */
    version: integer("version").notNull(),
    handNumber: integer("hand_number"),
    /** `log`: the bot's console; `failure`: a decision or hook that failed (kind in `failure`); `host`: the sandbox's own note. */
    kind: text("kind", { enum: ["log", "failure", "host"] }).notNull(),
    failure: text("failure"),
    level: text("level"),
    message: text("message").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [index("hosted_logs_bot_match_idx").on(t.botId, t.matchId, t.id)],
);
