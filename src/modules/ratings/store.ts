/**
 * Ratings in the database: recorded matches applied in record order by the applier (applier.ts),
 * and every rating rebuilt from the records in the order it was applied.
 */
import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { anyOf, queryRows, type Db, type Queryable, type Tx } from "../../db";
import { botRatingHistory, botRatings, matches, matchPlayers, tables } from "../../db/schema";
import { compareIds } from "../../lib/ids";
import type { StoredHand } from "../match-host/hand-history";
import { recordedHands } from "../match-host/hand-store";
import { MATCH_COLUMNS } from "../match-host/match-rows";
import { decodePartsWithDecks, matchDealOf, type StoredMatchPart } from "../match-host/recorded-hands";
import { ratedMatchOf, type RatedMatch } from "./luck";
import { applyMatch, conservativeRating, priorRating, type BotRating, type MatchResult } from "./skill";

type RatingRow = typeof botRatings.$inferSelect;

const toRow = (r: BotRating): RatingRow => ({ ...r, rating: conservativeRating(r) });

/**
 * Serialises every change to the ratings across the cluster (an arbitrary constant of this
 * service): one applier at a time, so matches are applied once each, in one global order.
 */
const RATINGS_LOCK_KEY = 0x72617465;

/** The oldest matches recorded as rated and not applied yet, in record order (ended_at, id). */
export async function pendingMatches(db: Queryable, limit: number): Promise<string[]> {
  const rows = await db.select({ id: matches.id }).from(matches).where(eq(matches.ratingPending, true)).orderBy(asc(matches.endedAt), asc(matches.id)).limit(limit);
  return rows.map((row) => row.id);
}

/** What a recorded match's rating is computed from: its players (by position), its hand histories in hand order and each one's deck (null: unknown). */
export async function recordedMatch(db: Queryable, matchId: string, archiveDir?: string): Promise<{ botIds: string[]; hands: StoredHand[]; decks: Array<number[] | null> }> {
  const { botIds, parts } = await recordedMatchStored(db, matchId, archiveDir);
  return { botIds, ...decodePartsWithDecks(parts) };
}

/**
 * The same as stored (chunks, JSON rows), with what decodes them: the applier's worker thread
 * decodes, not the event loop. A copy of a duplicate pair is rated with its twin when the twin
 * completed (the pair is one rated match: docs/RATINGS.md): the hands of both copies, copy 1's then
 * copy 2's, each in hand order; a twin that was aborted is left out. The applier and the rebuild
 * both read through here.
 */
export async function recordedMatchStored(db: Queryable, matchId: string, archiveDir?: string): Promise<{ botIds: string[]; parts: StoredMatchPart[] }> {
  const pair = await queryRows<{ id: string }>(
    db,
    sql`select m.id from matches m join tables t on t.id = m.table_id where m.id = ${matchId}
        union all select tw.id from matches m join matches tw on tw.id = m.twin_match_id join tables t on t.id = tw.table_id
          where m.id = ${matchId} and tw.status = 'completed'`,
  );
  const [players, rows] = await Promise.all([
    db.select({ botId: matchPlayers.botId }).from(matchPlayers).where(eq(matchPlayers.matchId, matchId)).orderBy(asc(matchPlayers.position)),
    db.select({ match: MATCH_COLUMNS, copy: tables.copy }).from(matches).innerJoin(tables, eq(tables.id, matches.tableId)).where(anyOf(matches.id, pair.map((row) => row.id))),
  ]);
  const inCopyOrder = rows.sort((a, b) => (a.copy ?? 0) - (b.copy ?? 0));
  const parts = await Promise.all(
    inCopyOrder.map(async ({ match }) => ({ deal: matchDealOf(match, match.deckSecret), recorded: await recordedHands(db, match.id, 0, Number.POSITIVE_INFINITY, archiveDir) })),
  );
  return { botIds: players.map((p) => p.botId), parts };
}

/** A pending match with its results (and the estimator of their adjusted sums) computed, or null when its hands cannot be rated (it is then dropped from the ratings). */
export interface ComputedMatch {
  matchId: string;
  rated: RatedMatch | null;
}

/**
 * In one transaction, under the ratings lock: the given matches that are still pending (another
 * node may have applied some meanwhile) are applied in the order given and marked applied.
 * Returns how many this call applied or dropped.
 */
export async function applyPendingMatches(db: Db, computed: ComputedMatch[]): Promise<number> {
  if (computed.length === 0) return 0;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RATINGS_LOCK_KEY})`);
    const still = await tx.select({ id: matches.id }).from(matches).where(and(anyOf(matches.id, computed.map((c) => c.matchId)), eq(matches.ratingPending, true)));
    const pending = new Set(still.map((row) => row.id));
    const mine = computed.filter((c) => pending.has(c.matchId));
    if (mine.length === 0) return 0;
    await rateMatches(tx, mine.flatMap((c) => (c.rated ? [{ matchId: c.matchId, ...c.rated }] : [])));
    await tx.update(matches).set({ ratingPending: false }).where(anyOf(matches.id, mine.map((c) => c.matchId)));
    return mine.length;
  });
}

/**
 * Lock the players' rating rows (created at the prior when missing, in bot id order so concurrent
 * writers cannot deadlock), take each match's place in the ratings' history, apply them in that
 * order. A bot's updates happen in rated_seq order, which the rebuild replays.
 */
async function rateMatches(tx: Tx, rated: Array<{ matchId: string } & RatedMatch>): Promise<void> {
  if (rated.length === 0) return;
  const ids = [...new Set(rated.flatMap((m) => m.results.map((r) => r.botId)))].sort(compareIds);
  // Pipelined on the transaction's connection, run in this order: the sequence numbers are taken
  // once the rows are locked, so a bot's updates are numbered in the order they are applied.
  const [, rows, sequence] = await Promise.all([
    tx.execute(sql`insert into bot_ratings (bot_id, mu, sigma, rating, matches_played, hands_played, sum_bb, sum_bb_squared, sum_adjusted_bb, sum_adjusted_bb_squared, estimator)
      select * from json_to_recordset(${JSON.stringify(ids.map((id) => snakeCase(toRow(priorRating(id)))))}::json) as ${RATING_COLUMNS}
      on conflict do nothing`),
    tx.select().from(botRatings).where(anyOf(botRatings.botId, ids)).orderBy(sql`${botRatings.botId} collate "C"`).for("update"),
    queryRows<{ seq: string }>(tx, sql`select nextval('rating_seq')::text as seq from generate_series(1, ${rated.length})`),
  ]);
  const seqs = sequence.map((row) => BigInt(row.seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const current = new Map<string, RatingRow>(rows.map((row) => [row.botId, row]));
  const history: HistoryRow[] = [];
  rated.forEach(({ matchId, results, estimator }, i) => {
    const after = applyMatch(current, results, estimator);
    for (const rating of after) current.set(rating.botId, toRow(rating));
    history.push(...historyRows(matchId, seqs[i], results, after));
  });
  await insertHistory(tx, history);
  // Two statements for all players of all the matches (JSON numbers carry doubles exactly: the shortest text that reads back the same).
  await Promise.all([
    tx.execute(sql`update bot_ratings set mu = x.mu, sigma = x.sigma, rating = x.rating, matches_played = x.matches_played,
        hands_played = x.hands_played, sum_bb = x.sum_bb, sum_bb_squared = x.sum_bb_squared,
        sum_adjusted_bb = x.sum_adjusted_bb, sum_adjusted_bb_squared = x.sum_adjusted_bb_squared, estimator = x.estimator
      from json_to_recordset(${JSON.stringify(ids.map((id) => snakeCase(current.get(id)!)))}::json) as ${RATING_COLUMNS}
      where bot_ratings.bot_id = x.bot_id`),
    tx.execute(sql`update matches set rated_seq = x.seq, rating_estimator = x.estimator
      from json_to_recordset(${JSON.stringify(rated.map((m, i) => ({ id: m.matchId, seq: String(seqs[i]), estimator: m.estimator })))}::json) as x(id text, seq bigint, estimator text)
      where matches.id = x.id`),
  ]);
}

const RATING_COLUMNS = sql.raw(
  "x(bot_id text, mu float8, sigma float8, rating float8, matches_played int, hands_played int, sum_bb float8, sum_bb_squared float8, sum_adjusted_bb float8, sum_adjusted_bb_squared float8, estimator text)",
);

const snakeCase = (row: RatingRow) => ({
  bot_id: row.botId,
  mu: row.mu,
  sigma: row.sigma,
  rating: row.rating,
  matches_played: row.matchesPlayed,
  hands_played: row.handsPlayed,
  sum_bb: row.sumBb,
  sum_bb_squared: row.sumBbSquared,
  sum_adjusted_bb: row.sumAdjustedBb,
  sum_adjusted_bb_squared: row.sumAdjustedBbSquared,
  estimator: row.estimator,
});

/**
 * Every rated match again, in the order it was first applied (rated_seq), from the match records
 * and hand histories through the same functions as the applier (ratedMatchOf, applyMatch), each
 * with the estimator it gives now (estimator.ts CURRENT_ESTIMATOR wherever the decks are known):
 * matches.rating_estimator is rewritten to match.
 */
export async function rebuildRatings(db: Db, archiveDir?: string): Promise<{ matches: number; bots: number }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RATINGS_LOCK_KEY})`);
    await tx.execute(sql`lock table bot_ratings in exclusive mode`);
    const rated = await tx.select({ id: matches.id, ratedSeq: matches.ratedSeq }).from(matches).where(isNotNull(matches.ratedSeq)).orderBy(asc(matches.ratedSeq));
    const current = new Map<string, BotRating>();
    const history: HistoryRow[] = [];
    const estimators: Array<{ id: string; estimator: string }> = [];
    for (const { id, ratedSeq } of rated) {
      const { botIds, hands, decks } = await recordedMatch(tx, id, archiveDir);
      const { estimator, results } = ratedMatchOf(botIds, hands, decks);
      const after = applyMatch(current, results, estimator);
      for (const rating of after) current.set(rating.botId, rating);
      history.push(...historyRows(id, BigInt(ratedSeq!), results, after));
      estimators.push({ id, estimator });
    }
    for (let i = 0; i < estimators.length; i += 1000) {
      await tx.execute(sql`update matches set rating_estimator = x.estimator
        from json_to_recordset(${JSON.stringify(estimators.slice(i, i + 1000))}::json) as x(id text, estimator text) where matches.id = x.id`);
    }
    await tx.delete(botRatings);
    await tx.delete(botRatingHistory);
    await insertHistory(tx, history);
    const rows = [...current.values()].map(toRow);
    for (let i = 0; i < rows.length; i += 1000) await tx.insert(botRatings).values(rows.slice(i, i + 1000));
    return { matches: rated.length, bots: rows.length };
  });
}

type HistoryRow = typeof botRatingHistory.$inferInsert;

/** Each player's rating after the match and its results in it (bot_rating_history). */
function historyRows(matchId: string, ratedSeq: bigint, results: MatchResult[], after: BotRating[]): HistoryRow[] {
  return results.map((result, i) => ({
    botId: result.botId,
    matchId,
    ratedSeq: Number(ratedSeq),
    mu: after[i].mu,
    sigma: after[i].sigma,
    hands: result.hands.count,
    sumBb: result.hands.sumBb,
    sumBbSquared: result.hands.sumBbSquared,
    sumAdjustedBb: result.hands.sumAdjustedBb,
    sumAdjustedBbSquared: result.hands.sumAdjustedBbSquared,
  }));
}

async function insertHistory(tx: Tx, rows: HistoryRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) await tx.insert(botRatingHistory).values(rows.slice(i, i + 1000)).onConflictDoNothing();
}
