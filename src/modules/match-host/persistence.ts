import type { BlindLevel } from "../../poker/blind-levels";
import { and, eq, sql } from "drizzle-orm";
import { anyKeyOf, anyOf, queryRows, type Db, type Queryable, type Tx } from "../../db/index";
import { retryTransient, type RetryOptions } from "../../db/retry";
import { developers, matches, seats, tables, type TableConfig } from "../../db/schema";
import type { StoredHand } from "../../poker/hand-record";
import { upsertChunks } from "./hand-store";
import type { StoredChunk } from "./recorded-hands";
import { compareIds } from "../../lib/ids";
import { SEAT_LEDGER } from "../tables/seat-rows";
import { tableConfigOf } from "../../db/table-config";
import { SEAT_COLUMNS } from "../../db/seat-developer";
import { assertLease, ownedTables, type FenceToken } from "../cluster/lease";

/** A seat leaving the table in a batch: closed and cashed out in the batch's transaction. */
export interface SeatClosure {
  /** The seat's key (seats.seq). */
  seatId: number;
  developerId: string;
  botId: string;
  chips: number;
}

export interface HandRecord {
  number: number;
  history: StoredHand;
  /** The match deals from a seed (no deck secret): its stored hands carry their cards. */
  explicitCards: boolean;
  /** The match's blind schedule (a sit-and-go's rising blinds), which its chunks decode by. */
  blindLevels?: BlindLevel[];
}

/** One table's share of a write: completed hands, the stacks after them, and seats that left. */
export interface TableBatch {
  tableId: string;
  matchId: string;
  hands: HandRecord[];
  /** The hands as stored: each chunk they were appended to, as it stands after them (journal.ts). */
  chunks: StoredChunk[];
  /** seatId → chips after the last hand in the batch, for seats still at the table. */
  stacks: Map<number, number>;
  closures: SeatClosure[];
}

export interface MatchPlayerRecord {
  botId: string;
  developerId: string;
  position: number;
  buyIn: number;
  finalChips: number;
  handsPlayed: number;
  handsWon: number;
  /** The hosted code version it played (null or absent: not hosted). */
  codeVersion?: number | null;
}

export interface MatchOutcome {
  matchId: string;
  tableId: string;
  handsPlayed: number;
  /** Numbers voided by resumptions (never recorded, never dealt again): the fairness record lists them. */
  voidedHands: number[];
  startedAt: Date;
  endedAt: Date;
  players: MatchPlayerRecord[];
  /** Seats still open at the end: cashed out in the same transaction as the record. */
  finalClosures: SeatClosure[];
  /** The deck secret, revealed by the match's record (null: seeded). */
  deckSecret?: string | null;
  /** false for a seeded match: whoever knows the seed knows every card, so it never counts toward statistics. */
  ranked: boolean;
  /** Counts toward skill ratings: ranked, and bots of at least two developers (no rating from self-play). */
  rated: boolean;
  /** A copy of a duplicate pair: the other copy's match (rated together with it: match-finish.ts); null or absent otherwise. */
  twinMatchId?: string | null;
  /** Deals from a hosted round's secret (round-decks.ts): the record keeps it sealed, and the rating waits, until the round ends. */
  holdSecret?: boolean;
}

export function emptyBatch(tableId: string, matchId: string): TableBatch {
  return { tableId, matchId, hands: [], chunks: [], stacks: new Map(), closures: [] };
}

/**
 * Every write of a running match is retried after a lost connection (see src/db/retry.ts), and
 * each is idempotent for it: running it again after a COMMIT whose answer was lost changes nothing.
 */
export async function markMatchStarted(
  db: Db,
  tableId: string,
  matchId: string,
  startedAt: Date,
  /**
   * The deck's commitment and its secret sealed (deck-seal.ts; never the secret itself), the bot at
   * each seat, the first block of hand numbers it may deal (deal-guard.ts), and the other copy's
   * match for a copy of a duplicate pair (null otherwise).
   */
  deck: StartedMatch["deck"],
  fence: FenceToken | null = null,
  retry: RetryOptions = {},
) {
  await markMatchesStarted(db, [{ tableId, matchId, startedAt, deck }], fence, retry);
}

/** A match's first row: its table, id, start, and deck (see markMatchStarted); its config is its table's (match-rows.ts). */
export interface StartedMatch {
  tableId: string;
  matchId: string;
  startedAt: Date;
  deck: { deckCommitment: string | null; deckSecretSealed: string | null; seatBots: Array<string | null>; handsReserved: number; twinMatchId?: string | null };
}

/**
 * Matches start in ONE transaction: both copies of a duplicate pair are recorded together, so no
 * crash can leave one copy started and the other not (each names the other from its first row).
 */
export async function markMatchesStarted(db: Db, started: StartedMatch[], fence: FenceToken | null = null, retry: RetryOptions = {}) {
  await retryTransient(
    () =>
      db.transaction(async (tx) => {
        await assertLease(tx, fence, started.map((m) => m.tableId));
        for (const { tableId, matchId, startedAt, deck } of started) {
          await Promise.all([
            tx.insert(matches).values({ id: matchId, tableId, status: "running", startedAt, ...deck }).onConflictDoNothing(),
            tx.update(tables).set({ status: "running", matchId }).where(eq(tables.id, tableId)),
          ]);
        }
      }),
    retry,
  );
}

/**
 * The statements that write any number of tables' batches: two, whatever the count (each takes
 * its rows as a few array or json parameters, so the SQL never changes and stays prepared), plus
 * the lock of the developers who cash out and one statement per cashout. They are issued at once,
 * in this order, and pipelined on the transaction's connection: the server runs them in order, and
 * no round trip waits for the one before. A running match's row is not written per batch: the hands
 * it has recorded are counted from their chunks (hand-store.ts `handsRecordedOf`), and its end
 * writes its count (a row of ~0.5 KB written again each flush was most of a match's own bytes).
 */
export function batchStatements(tx: Tx, batches: TableBatch[], now: Date): Promise<unknown>[] {
  const closures = batches
    .flatMap((batch) => batch.closures.map((closure) => ({ batch, closure })))
    .sort((a, b) => compareIds(a.closure.developerId, b.closure.developerId) || a.closure.seatId - b.closure.seatId);
  const statements: Promise<unknown>[] = [];
  const chunks = batches.flatMap((b) => b.chunks.map((chunk) => ({ ...chunk, matchId: b.matchId })));
  if (chunks.length > 0) statements.push(upsertChunks(tx, chunks));
  const stacks = batches.flatMap((b) => [...b.stacks].map(([id, chips]) => ({ id, chips })));
  if (stacks.length > 0) {
    statements.push(
      tx.execute(sql`update seats set chips = x.chips
        from jsonb_to_recordset(${JSON.stringify(stacks)}::jsonb) as x(id bigint, chips bigint)
        where seats.seq = x.id and seats.status = 'open'`),
    );
  }
  // The developers' balance rows last, after the hand rows (the bulk of the work): they are then
  // locked only for the cashouts and the commit, and other tables' cashouts wait that long at most.
  if (closures.length > 0) statements.push(lockDevelopers(tx, closures.map(({ closure }) => closure.developerId)));
  for (const { batch, closure } of closures) {
    const refs = { botId: closure.botId, tableId: batch.tableId, matchId: batch.matchId };
    statements.push(SEAT_LEDGER.cashoutWithin(tx, closure.developerId, closure.seatId, closure.chips, refs, now));
  }
  return statements;
}


/**
 * Locks developers' balance rows in id order, first thing: every transaction that credits several
 * developers takes them this way, so no two of them (in one process or several) wait in a cycle.
 */
function lockDevelopers(tx: Tx, developerIds: string[]): Promise<unknown> {
  const ids = [...new Set(developerIds)].sort(compareIds);
  return tx.execute(sql`select id from developers where ${anyOf(developers.id, ids)} order by id for update`);
}

/**
 * One transaction for all the batches given: hand rows, stacks after them, cashouts of seats that
 * left. Run again, hands already written are skipped and seats already closed are not cashed out twice.
 */
export async function writeBatches(db: Db, batches: TableBatch[], now: Date, fence: FenceToken | null = null, retry: RetryOptions = {}): Promise<TableBatch[]> {
  return retryTransient(
    (attempt) =>
      db.transaction(async (tx) => {
        // Tables another node took over are left out (and returned): the rest are written.
        const owned = await ownedTables(tx, fence, [...new Set(batches.map((b) => b.tableId))]);
        const mine = batches.filter((b) => owned.has(b.tableId));
        const again = attempt > 1 ? await withOpenClosures(tx, mine) : mine;
        if (again.length > 0) await Promise.all(batchStatements(tx, again, now));
        return batches.filter((b) => !owned.has(b.tableId));
      }),
    retry,
  );
}

/** The batches with only the closures whose seats are still open. */
async function withOpenClosures(tx: Tx, batches: TableBatch[]): Promise<TableBatch[]> {
  const seatIds = batches.flatMap((b) => b.closures.map((c) => c.seatId));
  if (seatIds.length === 0) return batches;
  const open = await tx.select({ seq: seats.seq }).from(seats).where(and(anyKeyOf(seats.seq, seatIds), eq(seats.status, "open")));
  const stillOpen = new Set(open.map((row) => row.seq));
  return batches.map((b) => ({ ...b, closures: b.closures.filter((c) => stillOpen.has(c.seatId)) }));
}

/**
 * After a crash (or a failed match): every open seat of the table is cashed out at its chips
 * after the last completed hand, the match is marked aborted (no stats change), and so is the table.
 */
export function abortTable(
  db: Queryable,
  tableId: string,
  now: Date,
  options: {
    fence?: FenceToken | null;
    /** The match's deck secret, as the host holds it: a copy of a duplicate pair whose twin completed reveals the twin's record with it (the pair has ended). */
    deckSecret?: string | null;
    retry?: RetryOptions;
  } = {},
): Promise<number> {
  return retryTransient(() => abortTableOnce(db, tableId, now, options.fence ?? null, options.deckSecret ?? null), options.retry ?? {});
}

async function abortTableOnce(db: Queryable, tableId: string, now: Date, fence: FenceToken | null, deckSecret: string | null): Promise<number> {
  return db.transaction(async (tx) => {
    await assertLease(tx, fence, [tableId]);
    // A copy of a duplicate pair: its pair's lock first, as a finish takes it (match-finish.ts); then its twin's match, if it has one yet.
    await lockPairs(tx, [tableId]);
    const [{ twin = null } = {}] = await queryRows<{ twin: string | null }>(
      tx,
      sql`select tw.match_id as twin from tables t join tables tw on tw.id = t.twin_id where t.id = ${tableId}`,
    );
    const open = (await tx.select(SEAT_COLUMNS).from(seats).where(and(eq(seats.tableId, tableId), eq(seats.status, "open")))).sort(
      (a, b) => compareIds(a.developerId, b.developerId) || a.seq - b.seq,
    );
    if (open.length > 0) await lockDevelopers(tx, open.map((seat) => seat.developerId));
    const [table] = await tx.select({ status: tables.status, matchId: tables.matchId }).from(tables).where(eq(tables.id, tableId)).for("update");
    if (!table || table.status === "finished" || table.status === "aborted") return 0;
    for (const seat of open) {
      await SEAT_LEDGER.cashoutWithin(tx, seat.developerId, seat.seq, seat.chips, { botId: seat.botId, tableId, matchId: table.matchId }, now);
    }
    if (table.matchId) await tx.update(matches).set({ status: "aborted", endedAt: now }).where(eq(matches.id, table.matchId));
    if (twin !== null) await endPairWithTwin(tx, twin, deckSecret);
    await tx.update(tables).set({ status: "aborted" }).where(eq(tables.id, tableId));
    return open.length;
  });
}

/** The class of the advisory locks that serialise what ends a duplicate pair's copies (a key per pair). */
const PAIR_LOCK_CLASS = 0x70616972;

/**
 * Takes the lock of each duplicate pair these tables belong to, in one order (by pair), before the
 * transaction ends a copy: a copy's finish (match-finish.ts `ratingPending`) and its abort take it,
 * so the two copies of a pair never end at once, and each sees how the other ended. An advisory
 * lock, not a row lock: a copy may end before its twin's match row exists, and the tables' rows are
 * share-locked by the lease check.
 */
export async function lockPairs(tx: Tx, tableIds: string[]): Promise<void> {
  const pairs = await queryRows<{ pair: string }>(
    tx,
    sql`select distinct least(id, twin_id) as pair from tables where id = any(${sql.param(tableIds)}::text[]) and twin_id is not null order by 1`,
  );
  for (const { pair } of pairs) await tx.execute(sql`select pg_advisory_xact_lock(${PAIR_LOCK_CLASS}, hashtext(${pair}))`);
}

/**
 * A copy of a duplicate pair was aborted: its twin, if it completed already (waiting to be rated
 * with this one, its secret still sealed), is revealed and rated alone: its own hands
 * (ratings/store.ts leaves an aborted twin's out).
 */
async function endPairWithTwin(tx: Tx, twin: string, deckSecret: string | null): Promise<void> {
  // Its secret was kept sealed while this copy still played on it (match-finish.ts): the pair has ended now.
  if (deckSecret !== null) {
    await tx.execute(sql`update matches set deck_secret = ${deckSecret}, deck_secret_sealed = null where id = ${twin} and status = 'completed' and deck_secret is null`);
  }
  await tx.execute(sql`update matches set rating_pending = true
    where id = ${twin} and status = 'completed' and rated_seq is null and not rating_pending
      and (select ${tableConfigOf("t")}->>'seed' from tables t where t.id = matches.table_id) is null
      and (select count(distinct b.developer_id) from match_players mp join bots b on b.id = mp.bot_id where mp.match_id = ${twin}) > 1`);
}

