/**
 * What the tables read and write about hosted bots' code (issue 27): which version of each bot a
 * match pins, the code of a pinned version (a resumed match reopens it), and the log rows a match
 * leaves (GET /api/bots/:botId/logs reads them). Free functions over the database, used by the
 * match host; the upload routes write bot_code_versions.
 */
import { and, desc, eq, inArray, isNull, max, or, sql } from "drizzle-orm";
import { queryRows, type Db, type Queryable } from "../../db";
import { botCodeVersions, bots, hostedLogs } from "../../db/schema";
import { seatDeveloperOf } from "../../db/seat-developer";
import { errors } from "../../lib/errors";

/** A version of a bot's code as a match runs it: `bundled` is the script the sandbox loads. */
export interface CodeVersion {
  version: number;
  bundled: string;
}

/**
 * A bot is hosted while it has a version and its owner has not turned hosting off (DELETE
 * /api/bots/:botId/code sets bots.unhosted_at; the next upload clears it): the one rule, as SQL.
 */
const hostingOn = (botId: typeof botCodeVersions.botId) => sql`exists (select 1 from ${bots} where ${bots.id} = ${botId} and ${isNull(bots.unhostedAt)})`;

/** The current (highest) version of each of these bots that is hosted. */
export async function currentCodeVersions(db: Queryable, botIds: string[]): Promise<Map<string, CodeVersion>> {
  if (botIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([botCodeVersions.botId], { botId: botCodeVersions.botId, version: botCodeVersions.version, bundled: botCodeVersions.bundled })
    .from(botCodeVersions)
    .where(and(inArray(botCodeVersions.botId, [...new Set(botIds)]), hostingOn(botCodeVersions.botId)))
    .orderBy(botCodeVersions.botId, desc(botCodeVersions.version));
  return new Map(rows.map((r) => [r.botId, { version: r.version, bundled: r.bundled }]));
}

/** The current version number of each of these bots that is hosted (the owner's views show it). */
export async function currentVersionNumbers(db: Queryable, botIds: string[]): Promise<Map<string, number>> {
  if (botIds.length === 0) return new Map();
  const rows = await db
    .select({ botId: botCodeVersions.botId, version: max(botCodeVersions.version) })
    .from(botCodeVersions)
    .where(and(inArray(botCodeVersions.botId, [...new Set(botIds)]), hostingOn(botCodeVersions.botId)))
    .groupBy(botCodeVersions.botId);
  return new Map(rows.map((row) => [row.botId, row.version!]));
}

/** Which of these bots are hosted (a version, hosting on), without reading their code. */
export async function hostedBots(db: Queryable, botIds: string[]): Promise<Set<string>> {
  return new Set((await currentVersionNumbers(db, botIds)).keys());
}

/** The code of the versions a match pinned (botId → its pinned version's code), for a resumed match: a match keeps the version it began with, hosting turned off or not. */
export async function pinnedCodeVersions(db: Queryable, pins: Array<{ botId: string; version: number }>): Promise<Map<string, CodeVersion>> {
  if (pins.length === 0) return new Map();
  const rows = await db
    .select({ botId: botCodeVersions.botId, version: botCodeVersions.version, bundled: botCodeVersions.bundled })
    .from(botCodeVersions)
    .where(or(...pins.map((p) => and(eq(botCodeVersions.botId, p.botId), eq(botCodeVersions.version, p.version)))));
  return new Map(rows.map((r) => [r.botId, { version: r.version, bundled: r.bundled }]));
}

/** One line of a hosted bot's log in a match. */
export type HostedLogRow = typeof hostedLogs.$inferInsert;

/** Appends log rows (one statement; nothing to do for none). */
export async function appendHostedLogs(db: Db | Queryable, rows: HostedLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(hostedLogs).values(rows);
}

/**
 * Seats the developers' hosted bots hold now, across the cluster: open seats (at a waiting or a
 * running table) of bots that are hosted, or whose match pinned a version (it plays its code though
 * hosting was turned off since). A seat is one sandbox context (two in a duplicate match).
 */
export async function hostedSeatsHeld(db: Queryable, developerIds: string[]): Promise<Map<string, number>> {
  if (developerIds.length === 0) return new Map();
  const rows = await queryRows<{ developer_id: string; held: number }>(
    db,
    sql`select ${seatDeveloperOf("s")} as developer_id, count(*)::int as held from seats s
        where ${seatDeveloperOf("s")} = any(${sql.param([...new Set(developerIds)])}::text[]) and s.status = 'open' and s.bot_id is not null
          and (s.code_version is not null or exists (select 1 from bot_code_versions v join bots b on b.id = v.bot_id where v.bot_id = s.bot_id and b.unhosted_at is null))
        group by 1`,
  );
  return new Map(rows.map((r) => [r.developer_id, r.held]));
}

/**
 * Whether a developer may seat this bot now under MAX_HOSTED_SEATS_PER_DEVELOPER (`limit`): a bot
 * with no code (remote or built-in) takes no sandbox memory and is always allowed; a hosted one
 * while the developer's hosted bots hold fewer than `limit` seats. For the ladder: an entry whose
 * developer is at the limit is paused (HOSTED_SEAT_LIMIT) until one of its matches ends.
 */
export async function mayOpenHostedSeat(db: Queryable, developerId: string, botId: string, limit: number): Promise<{ allowed: boolean; held: number; limit: number }> {
  if (!(await hostedBots(db, [botId])).has(botId)) return { allowed: true, held: 0, limit };
  const held = (await hostedSeatsHeld(db, [developerId])).get(developerId) ?? 0;
  return { allowed: held < limit, held, limit };
}

/**
 * A join's check (tables' `hostedSeatCap`): 409 TOO_MANY_HOSTED_SEATS when the bot is hosted and its
 * developer's hosted bots hold `limit` seats already. Checked before the buy-in, so two joins racing
 * on two tables may both pass it (the cap may be passed by the joins in flight, never more).
 */
export async function refuseIfHostedSeatsFull(db: Queryable, developerId: string, botId: string, limit: number): Promise<void> {
  const { allowed, held } = await mayOpenHostedSeat(db, developerId, botId, limit);
  if (!allowed) {
    throw errors.conflict("TOO_MANY_HOSTED_SEATS", `Your hosted bots hold ${held} seats, the most a developer may hold at once (${limit}): one may join when one of their matches ends`, { held, limit });
  }
}
