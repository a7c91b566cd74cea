/** Ratings in the database: applied in the match's own transaction, and rebuilt from the records. */
import { asc, eq, isNotNull, sql } from "drizzle-orm";
import { anyOf, queryRows, type Db, type Queryable } from "../../db";
import { botRatings, hands, matches, matchPlayers } from "../../db/schema";
import { compareIds } from "../../lib/ids";
import type { StoredHand } from "../match-host/hand-history";
import { addHandResult, applyMatch, conservativeRating, noHands, priorRating, type BotRating, type HandResults, type MatchResult } from "./skill";

type RatingRow = typeof botRatings.$inferSelect;

const toRow = (r: BotRating): RatingRow => ({ ...r, rating: conservativeRating(r) });

/**
 * Inside the transaction that records the matches: lock the players' rating rows (created at the
 * prior when missing, in bot id order so concurrent writers cannot deadlock), take each match's
 * place in the ratings' history, apply them in that order. A bot's updates happen in rated_seq
 * order, which the rebuild replays.
 */
export async function rateMatches(tx: Queryable, rated: Array<{ matchId: string; results: MatchResult[] }>): Promise<void> {
  if (rated.length === 0) return;
  const ids = [...new Set(rated.flatMap((m) => m.results.map((r) => r.botId)))].sort(compareIds);
  // Pipelined on the transaction's connection, run in this order: the sequence numbers are taken
  // once the rows are locked, so a bot's updates are numbered in the order they are applied.
  const [, rows, sequence] = await Promise.all([
    tx.execute(sql`insert into bot_ratings (bot_id, mu, sigma, rating, matches_played, hands_played, sum_bb, sum_bb_squared)
      select * from json_to_recordset(${JSON.stringify(ids.map((id) => snakeCase(toRow(priorRating(id)))))}::json) as ${RATING_COLUMNS}
      on conflict do nothing`),
    tx.select().from(botRatings).where(anyOf(botRatings.botId, ids)).orderBy(sql`${botRatings.botId} collate "C"`).for("update"),
    queryRows<{ seq: string }>(tx, sql`select nextval('rating_seq')::text as seq from generate_series(1, ${rated.length})`),
  ]);
  const seqs = sequence.map((row) => BigInt(row.seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const current = new Map<string, RatingRow>(rows.map((row) => [row.botId, row]));
  for (const { results } of rated) for (const rating of applyMatch(current, results)) current.set(rating.botId, toRow(rating));
  // Two statements for all players of all the matches (JSON numbers carry doubles exactly: the shortest text that reads back the same).
  await Promise.all([
    tx.execute(sql`update bot_ratings set mu = x.mu, sigma = x.sigma, rating = x.rating, matches_played = x.matches_played,
        hands_played = x.hands_played, sum_bb = x.sum_bb, sum_bb_squared = x.sum_bb_squared
      from json_to_recordset(${JSON.stringify(ids.map((id) => snakeCase(current.get(id)!)))}::json) as ${RATING_COLUMNS}
      where bot_ratings.bot_id = x.bot_id`),
    tx.execute(sql`update matches set rated_seq = x.seq
      from json_to_recordset(${JSON.stringify(rated.map((m, i) => ({ id: m.matchId, seq: String(seqs[i]) })))}::json) as x(id text, seq bigint)
      where matches.id = x.id`),
  ]);
}

const RATING_COLUMNS = sql.raw("x(bot_id text, mu float8, sigma float8, rating float8, matches_played int, hands_played int, sum_bb float8, sum_bb_squared float8)");

const snakeCase = (row: RatingRow) => ({
  bot_id: row.botId,
  mu: row.mu,
  sigma: row.sigma,
  rating: row.rating,
  matches_played: row.matchesPlayed,
  hands_played: row.handsPlayed,
  sum_bb: row.sumBb,
  sum_bb_squared: row.sumBbSquared,
});

/** Every rated match again, in the order it was first applied, from the match records and hand histories. */
export async function rebuildRatings(db: Db): Promise<{ matches: number; bots: number }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`lock table bot_ratings in exclusive mode`);
    const rated = await tx.select({ id: matches.id }).from(matches).where(isNotNull(matches.ratedSeq)).orderBy(asc(matches.ratedSeq));
    const current = new Map<string, BotRating>();
    for (const { id } of rated) {
      const results = await matchResults(tx, id);
      for (const rating of applyMatch(current, results)) current.set(rating.botId, rating);
    }
    await tx.delete(botRatings);
    const rows = [...current.values()].map(toRow);
    for (let i = 0; i < rows.length; i += 1000) await tx.insert(botRatings).values(rows.slice(i, i + 1000));
    return { matches: rated.length, bots: rows.length };
  });
}

/** A recorded match's results: final chips from its players, hand results from its histories in hand order. */
async function matchResults(tx: Queryable, matchId: string): Promise<MatchResult[]> {
  const players = await tx.select().from(matchPlayers).where(eq(matchPlayers.matchId, matchId)).orderBy(asc(matchPlayers.position));
  const handRows = await tx.select({ history: hands.history }).from(hands).where(eq(hands.matchId, matchId)).orderBy(asc(hands.number));
  const results = new Map<string, HandResults>(players.map((p) => [p.botId, noHands()]));
  for (const { history } of handRows) addHandResults(results, history as StoredHand);
  return players.map((p) => ({ botId: p.botId, finalChips: p.finalChips, hands: results.get(p.botId)! }));
}

/** A finished hand's result for each of its players, in big blinds. */
export function addHandResults(results: Map<string, HandResults>, hand: Pick<StoredHand, "players" | "bigBlind">): void {
  for (const p of hand.players) {
    let acc = results.get(p.botId);
    if (!acc) results.set(p.botId, (acc = noHands()));
    addHandResult(acc, p.finalStack - p.startingStack, hand.bigBlind);
  }
}
