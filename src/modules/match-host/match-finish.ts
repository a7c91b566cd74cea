import { and, eq, sql } from "drizzle-orm";
import { anyOf, queryRows, type Db, type Tx } from "../../db/index";
import { retryTransient, type RetryOptions } from "../../db/retry";
import { matches, tables } from "../../db/schema";
import { invariant } from "../../lib/assert";
import { assertLease, type FenceToken } from "../cluster/lease";
import { batchStatements, lockPairs, type MatchOutcome, type TableBatch } from "./persistence";
import { storedWinners } from "../../poker/match-winners";
import { writeMatchStats } from "../stats/writer";

/** A match that ended, with its table's hands and seat closures not yet written. */
export interface FinishedMatch {
  outcome: MatchOutcome;
  lastBatch: TableBatch;
}

/** The end of one match, in one transaction (see finishMatches). */
export function finishMatch(db: Db, outcome: MatchOutcome, lastBatch: TableBatch, fence: FenceToken | null = null, retry: RetryOptions = {}): Promise<void> {
  return finishMatches(db, [{ outcome, lastBatch }], fence, retry);
}

/**
 * The end of any number of matches, in ONE transaction: their last hands, the match records and
 * players, every player's stats, the rated ones marked for the ratings applier, and the cashout of every seat still open. Matches that
 * end together (a busy node ends dozens at once) share the statements and take each developer's
 * balance row once, instead of queueing behind each other's locks. Run again after a lost
 * connection, matches the first run completed are left out.
 */
export async function finishMatches(db: Db, finished: FinishedMatch[], fence: FenceToken | null = null, retry: RetryOptions = {}): Promise<void> {
  for (const { outcome } of finished) {
    const buyIns = outcome.players.reduce((sum, p) => sum + p.buyIn, 0);
    const finals = outcome.players.reduce((sum, p) => sum + p.finalChips, 0);
    invariant(buyIns === finals, `match ${outcome.matchId}: final chips ${finals} must equal buy-ins ${buyIns}`);
  }
  const write = (attempt: number) =>
    db.transaction(async (tx) => {
      await assertLease(tx, fence, finished.map((f) => f.outcome.tableId));
      const ends = await pairEnds(tx, finished.map((f) => f.outcome));
      const pending = attempt > 1 ? await notCompleted(tx, finished) : finished;
      if (pending.length > 0) await writeFinishes(tx, pending, ends);
    });
  await retryTransient(write, retry);
}

/** How the finishing matches end their pairs: which are marked for the ratings applier, and (for copies of a duplicate pair) whether the pair has ended with them. */
interface PairEnds {
  ratingPending: Map<string, boolean>;
  /** A copy of a duplicate pair: true when its twin has ended too (absent for a match of no pair). */
  pairEnded: Map<string, boolean>;
}

/**
 * Which of the finishing matches are marked for the ratings applier. A match is when it is rated
 * (ranked, two developers' bots). A duplicate pair is rated once, as one match, when both copies
 * are recorded: the copy recorded second is marked (both in this transaction: the later id), and
 * ratings/store.ts reads both copies' hands for it. A copy whose twin ended otherwise (aborted) is
 * rated alone; one whose twin still plays, or has yet to start, waits: the twin's finish, or its
 * abort, marks it then. The same decides when the pair's deck secret is revealed: with the copy that
 * ends second. The pairs' locks are taken first (persistence.ts `lockPairs`, as an abort takes them):
 * two copies finishing at once in two transactions cannot both see the other playing.
 */
async function pairEnds(tx: Tx, outcomes: MatchOutcome[]): Promise<PairEnds> {
  const ratingPending = new Map(outcomes.map((o) => [o.matchId, o.rated]));
  const pairEnded = new Map<string, boolean>();
  const copies = outcomes.filter((o) => o.twinMatchId);
  if (copies.length === 0) return { ratingPending, pairEnded };
  await lockPairs(tx, copies.map((o) => o.tableId));
  const twins = await queryRows<{ id: string; status: string }>(
    tx,
    sql`select t.id, tw.status from tables t join tables tw on tw.id = t.twin_id where t.id = any(${sql.param(copies.map((o) => o.tableId))}::text[])`,
  );
  const twinTableStatus = new Map(twins.map((row) => [row.id, row.status]));
  for (const copy of copies) {
    const twin = copy.twinMatchId!;
    // Both copies ending in this transaction: the later id is "second".
    const twinEnded = ratingPending.has(twin) ? copy.matchId > twin : !["waiting", "running"].includes(twinTableStatus.get(copy.tableId) ?? "running");
    ratingPending.set(copy.matchId, copy.rated && twinEnded);
    pairEnded.set(copy.matchId, twinEnded || ratingPending.has(twin));
  }
  return { ratingPending, pairEnded };
}

async function writeFinishes(tx: Tx, finished: FinishedMatch[], ends: PairEnds): Promise<void> {
  const outcomes = finished.map((f) => f.outcome);
  // Records first, money last: the developers' balance rows, locked by the cashouts, are then held
  // for one pipelined round trip and the commit, so other writers sharing developers wait least.
  await Promise.all([
    insertPlayers(tx, outcomes),
    writeMatchStats(tx, outcomes.filter((o) => o.ranked)),
    tx.update(tables).set({ status: "finished" }).where(anyOf(tables.id, outcomes.map((o) => o.tableId))),
  ]);
  const batches = finished.map(({ outcome, lastBatch }) => ({ ...lastBatch, closures: [...lastBatch.closures, ...outcome.finalClosures] }));
  const latestEnd = new Date(Math.max(...outcomes.map((o) => o.endedAt.getTime())));
  // The records after the batch: their handsPlayed counts the hands, where the batch's count is
  // the last hand's number (a hand voided by a crash leaves a gap).
  const records = outcomes.map((o) => ({
    id: o.matchId,
    hands_played: o.handsPlayed,
    voided_hands: o.voidedHands,
    winners: storedWinners(o.players),
    ended_at: o.endedAt.toISOString(),
    duration_ms: o.endedAt.getTime() - o.startedAt.getTime(),
    // A rated match is applied to the ratings after the commit, off the hot path (ratings/applier.ts).
    // A hosted round's match is marked when the round ends (round-decks.ts `revealRound`).
    rating_pending: !o.holdSecret && (ends.ratingPending.get(o.matchId) ?? false),
    // The deck secret is revealed (the fairness record) and its sealed copy goes, once nothing that
    // deals from it still plays: for a copy of a duplicate pair, once both copies have ended.
    // A hosted round's secret waits for the round's last match (round-decks.ts `revealRound`).
    deck_secret: ends.pairEnded.get(o.matchId) === false || o.holdSecret ? null : (o.deckSecret ?? null),
    // The twin, ended before this copy, is revealed with it (the same secret).
    twin_id: ends.pairEnded.get(o.matchId) === true && !o.holdSecret ? (o.twinMatchId ?? null) : null,
  }));
  // seat_bots is cleared: from now on the players name each seat's bot (match-rows.ts).
  await Promise.all([
    ...batchStatements(tx, batches, latestEnd),
    tx.execute(sql`update matches set status = 'completed', hands_played = x.hands_played, voided_hands = x.voided_hands, winners = x.winners, ended_at = x.ended_at, duration_ms = x.duration_ms, rating_pending = x.rating_pending,
        seat_bots = null, deck_secret = coalesce(x.deck_secret, matches.deck_secret), deck_secret_sealed = case when x.deck_secret is null then matches.deck_secret_sealed end
      from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as x(id text, hands_played int, voided_hands int[], winners jsonb, ended_at timestamptz, duration_ms bigint, rating_pending boolean, deck_secret text)
      where matches.id = x.id`),
    tx.execute(sql`update matches set deck_secret = x.deck_secret, deck_secret_sealed = null
      from jsonb_to_recordset(${JSON.stringify(records.filter((r) => r.twin_id !== null && r.deck_secret !== null))}::jsonb) as x(twin_id text, deck_secret text)
      where matches.id = x.twin_id and matches.status = 'completed'`),
  ]);
}

async function notCompleted(tx: Tx, finished: FinishedMatch[]): Promise<FinishedMatch[]> {
  const ids = finished.map((f) => f.outcome.matchId);
  const done = await tx.select({ id: matches.id }).from(matches).where(and(anyOf(matches.id, ids), eq(matches.status, "completed")));
  const completed = new Set(done.map((row) => row.id));
  return finished.filter((f) => !completed.has(f.outcome.matchId));
}

// Rows go in as ONE json parameter, so each statement's text never changes and stays prepared.

function insertPlayers(tx: Tx, outcomes: MatchOutcome[]): Promise<unknown> {
  const rows = outcomes.flatMap((o) =>
    o.players.map((p) => ({
      match_id: o.matchId,
      bot_id: p.botId,
      position: p.position,
      buy_in: p.buyIn,
      final_chips: p.finalChips,
      profit: p.finalChips - p.buyIn,
      hands_played: p.handsPlayed,
      hands_won: p.handsWon,
      code_version: p.codeVersion ?? null,
    })),
  );
  return tx.execute(sql`insert into match_players (match_id, bot_id, position, buy_in, final_chips, profit, hands_played, hands_won, code_version)
    select x.match_id, x.bot_id, x.position, x.buy_in, x.final_chips, x.profit, x.hands_played, x.hands_won, x.code_version
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(match_id text, bot_id text, position int,
      buy_in bigint, final_chips bigint, profit bigint, hands_played int, hands_won int, code_version int)`);
}
