import { and, eq, sql } from "drizzle-orm";
import { anyOf, queryRows, type Db, type Queryable, type Tx } from "../../db/index";
import { retryTransient, type RetryOptions } from "../../db/retry";
import { developers, matches, seats, tables, type TableConfig } from "../../db/schema";
import type { StoredHand } from "../../poker/hand-record";
import { upsertChunks } from "./hand-store";
import type { StoredChunk } from "./recorded-hands";
import { compareIds } from "../../lib/ids";
import { cashoutWithin } from "../credits/ledger";
import { assertLease, FencedError, leaseHolds, ownedTables, type FenceToken } from "../cluster/lease";

/** A seat leaving the table in a batch: closed and cashed out in the batch's transaction. */
export interface SeatClosure {
  seatId: string;
  developerId: string;
  botId: string;
  chips: number;
}

export interface HandRecord {
  number: number;
  history: StoredHand;
  /** The match deals from a seed (no deck secret): its stored hands carry their cards. */
  explicitCards: boolean;
}

/** One table's share of a write: completed hands, the stacks after them, and seats that left. */
export interface TableBatch {
  tableId: string;
  matchId: string;
  hands: HandRecord[];
  /** The hands as stored: each chunk they were appended to, as it stands after them (journal.ts). */
  chunks: StoredChunk[];
  /** seatId → chips after the last hand in the batch, for seats still at the table. */
  stacks: Map<string, number>;
  closures: SeatClosure[];
}

export interface MatchPlayerRecord {
  botId: string;
  developerId: string;
  seatId: string;
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
  config: TableConfig,
  startedAt: Date,
  /**
   * The deck's commitment and its secret sealed (deck-seal.ts; never the secret itself), the bot at
   * each seat, and the first block of hand numbers it may deal (deal-guard.ts).
   */
  deck: { deckCommitment: string | null; deckSecretSealed: string | null; seatBots: Array<string | null>; handsReserved: number },
  fence: FenceToken | null = null,
  retry: RetryOptions = {},
) {
  await retryTransient(
    () =>
      db.transaction(async (tx) => {
        await assertLease(tx, fence, [tableId]);
        await Promise.all([
          tx.insert(matches).values({ id: matchId, tableId, status: "running", config, startedAt, ...deck }).onConflictDoNothing(),
          tx.update(tables).set({ status: "running", matchId }).where(eq(tables.id, tableId)),
        ]);
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
    .sort((a, b) => compareIds(a.closure.developerId, b.closure.developerId) || compareIds(a.closure.seatId, b.closure.seatId));
  const statements: Promise<unknown>[] = [];
  const chunks = batches.flatMap((b) => b.chunks.map((chunk) => ({ ...chunk, matchId: b.matchId })));
  if (chunks.length > 0) statements.push(upsertChunks(tx, chunks));
  const stacks = batches.flatMap((b) => [...b.stacks].map(([id, chips]) => ({ id, chips })));
  if (stacks.length > 0) {
    statements.push(
      tx.execute(sql`update seats set chips = x.chips
        from jsonb_to_recordset(${JSON.stringify(stacks)}::jsonb) as x(id text, chips bigint)
        where seats.id = x.id and seats.status = 'open'`),
    );
  }
  // The developers' balance rows last, after the hand rows (the bulk of the work): they are then
  // locked only for the cashouts and the commit, and other tables' cashouts wait that long at most.
  if (closures.length > 0) statements.push(lockDevelopers(tx, closures.map(({ closure }) => closure.developerId)));
  for (const { batch, closure } of closures) {
    const refs = { botId: closure.botId, tableId: batch.tableId, matchId: batch.matchId };
    statements.push(cashoutWithin(tx, closure.developerId, closure.seatId, closure.chips, refs, now));
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
  const open = await queryRows<{ id: string }>(tx, sql`select id from seats where ${anyOf(seats.id, seatIds)} and status = 'open'`);
  const stillOpen = new Set(open.map((row) => row.id));
  return batches.map((b) => ({ ...b, closures: b.closures.filter((c) => stillOpen.has(c.seatId)) }));
}

/**
 * After a crash (or a failed match): every open seat of the table is cashed out at its chips
 * after the last completed hand, the match is marked aborted (no stats change), and so is the table.
 */
export function abortTable(db: Queryable, tableId: string, now: Date, fence: FenceToken | null = null, retry: RetryOptions = {}): Promise<number> {
  return retryTransient(() => abortTableOnce(db, tableId, now, fence), retry);
}

async function abortTableOnce(db: Queryable, tableId: string, now: Date, fence: FenceToken | null): Promise<number> {
  return db.transaction(async (tx) => {
    await assertLease(tx, fence, [tableId]);
    const open = (await tx.select().from(seats).where(and(eq(seats.tableId, tableId), eq(seats.status, "open")))).sort(
      (a, b) => compareIds(a.developerId, b.developerId) || compareIds(a.id, b.id),
    );
    if (open.length > 0) await lockDevelopers(tx, open.map((seat) => seat.developerId));
    const [table] = await tx.select().from(tables).where(eq(tables.id, tableId)).for("update");
    if (!table || table.status === "finished" || table.status === "aborted") return 0;
    for (const seat of open) {
      await cashoutWithin(tx, seat.developerId, seat.id, seat.chips, { botId: seat.botId, tableId, matchId: table.matchId }, now);
    }
    if (table.matchId) {
      await tx.update(matches).set({ status: "aborted", endedAt: now }).where(eq(matches.id, table.matchId));
    }
    await tx.update(tables).set({ status: "aborted" }).where(eq(tables.id, tableId));
    return open.length;
  });
}

export { handsRecordedOf } from "./hand-store";

export async function openSeatsOf(db: Queryable, tableIds: string[]) {
  if (tableIds.length === 0) return [];
  return db.select().from(seats).where(and(anyOf(seats.tableId, tableIds), eq(seats.status, "open")));
}

/**
 * A leave asked for mid-match, written before it is answered "leaving": a node that takes the
 * table over reads it back (resume.ts), so an acknowledged leave survives any failover.
 */
export async function markSeatLeaving(db: Queryable, seatId: string, tableId: string, fence: FenceToken | null, retry: RetryOptions = {}): Promise<void> {
  const marked = await retryTransient(
    () =>
      queryRows(db, sql`update seats set leaving = true where id = ${seatId} and status = 'open' and ${leaseHolds(fence, tableId)} returning 1`),
    retry,
  );
  if (marked.length > 0 || !fence) return;
  // No row: the seat was just cashed out (its match ended, or it busted, a moment ago), or the table is another node's now.
  const [seat] = await queryRows<{ status: string }>(db, sql`select status from seats where id = ${seatId}`);
  if (seat?.status === "open") throw new FencedError(fence);
}
