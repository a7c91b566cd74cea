import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/index";
import { isConnectionLost, retryTransient, transientCode, type RetryOptions } from "../../db/retry";
import type { Clock } from "../../lib/clock";
import type { MatchStore } from "./match-runner";
import { emptyBatch, markMatchesStarted, writeBatches, type HandRecord, type MatchOutcome, type SeatClosure, type TableBatch } from "./persistence";
import type { TableRuntime } from "../tables/runtime";
import { finishMatches, type FinishedMatch } from "./match-finish";
import { FencedError, leaseHolds, type FenceToken } from "../cluster/lease";
import { RESERVATION_BLOCK } from "./deal-guard";
import { ChunkWriter } from "../../poker/hand-codec";
import { CHUNK_BYTES } from "./hand-store";
import type { DeckSeal } from "./deck-seal";

/** Above this many unwritten hands, matches wait for the database (backpressure). */
const MAX_PENDING_HANDS = 2_000;
/**
 * Above this many unwritten hands of one table, that table waits: with the reserved block, this
 * bounds what a crash of its host can void (shown but never recorded) to about two blocks.
 */
const MAX_PENDING_HANDS_PER_TABLE = RESERVATION_BLOCK;

/** A match end waiting to be written, after its table's hands already in flight. */
interface EndingMatch extends FinishedMatch {
  earlierWrite: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes completed hands of every table in the background. While one transaction runs, hands
 * from all tables accumulate and go together in the next: a handful of statements per flush
 * however many tables play, so persistence never throttles play. Per table, order is kept.
 */
export class HandJournal implements MatchStore {
  private pending = new Map<string, TableBatch>();
  private pendingHands = 0;
  private draining: Promise<void> | null = null;
  private inFlight: Promise<void> = Promise.resolve();
  /** Tables waiting for the backlog to shrink: woken after each write. */
  private writeWaiters: Array<() => void> = [];
  private readonly failures = new Map<string, unknown>();
  private ending: EndingMatch[] = [];
  /** Each table's chunk in progress: its hands so far, encoded (the row is written again as it grows). */
  private readonly chunkWriters = new Map<string, ChunkWriter>();
  /** Tables whose chunk in progress has hands not yet handed to a write. */
  private readonly unsentChunks = new Set<string>();
  private endingDrain: Promise<void> | null = null;
  /** A lost connection is waited out (writes are idempotent), not turned into aborted matches. */
  private readonly retry: RetryOptions;
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: (message: string, error?: unknown) => void,
    /** Seals a match's deck secret before it is stored (it is revealed only by the match's end). */
    private readonly deckSeal: DeckSeal,
    /** This node's lease: every write lands only while it stands. */
    private readonly fence: () => FenceToken | null,
    /** Told of every seat closure once it is written: the bot may sit elsewhere from then on. */
    private readonly onSeatsClosed: (tableId: string, closures: SeatClosure[]) => void,
  ) {
    this.retry = {
      // A lost connection is worth an operator's attention; a deadlock or serialization conflict
      // between concurrent writers is an expected outcome, simply run again.
      onRetry: (error, attempt, delayMs) => {
        if (isConnectionLost(error)) this.log(`database write failed (${transientCode(error)}); retrying in ${Math.round(delayMs)} ms (attempt ${attempt + 1})`);
      },
    };
  }

  /** New matches' rows, in one transaction (the two copies of a duplicate pair start together: twins.ts). */
  async started(...started: TableRuntime[]): Promise<void> {
    const rows = await Promise.all(
      started.map(async (table) => {
        const matchId = table.matchId!;
        const seatBots = Array.from({ length: table.config.maxPlayers }, (_, position) => table.seats.get(position)?.botId ?? null);
        const deckSecretSealed = table.deckSecret === null ? null : await this.deckSeal.seal(matchId, table.deckSecret);
        return {
          tableId: table.tableId,
          matchId,
          startedAt: new Date(table.startedAt!),
          deck: { deckCommitment: table.deckCommitment, deckSecretSealed, seatBots, handsReserved: RESERVATION_BLOCK, twinMatchId: table.twin?.matchId ?? null },
        };
      }),
    );
    await markMatchesStarted(
      this.db,
      rows,
      this.fence(),
      this.retry,
    );
    for (const table of started) table.reservedThrough(RESERVATION_BLOCK);
  }

  /** A write of this table's hands failed: its match must stop (and the table is aborted). */
  failureOf(tableId: string): unknown {
    return this.failures.get(tableId);
  }

  record(tableId: string, matchId: string, hand: HandRecord | null, stacks: Map<number, number>, closures: SeatClosure[]): void {
    let batch = this.pending.get(tableId);
    if (!batch) {
      batch = emptyBatch(tableId, matchId);
      this.pending.set(tableId, batch);
    }
    if (hand) {
      this.appendToChunk(tableId, batch, hand);
      batch.hands.push(hand);
      this.pendingHands += 1;
    }
    for (const [seatId, chips] of stacks) batch.stacks.set(seatId, chips);
    for (const closure of closures) {
      batch.stacks.delete(closure.seatId);
      batch.closures.push(closure);
    }
    this.draining ??= this.drain();
  }

  /**
   * Encodes the hand into its table's chunk in progress. A full chunk (or a gap in the numbers: a
   * resume) is closed: its final bytes go with this batch, and the hand starts the next chunk.
   */
  private appendToChunk(tableId: string, batch: TableBatch, hand: HandRecord): void {
    let writer = this.chunkWriters.get(tableId);
    if (writer && (writer.byteLength >= CHUNK_BYTES || hand.number !== writer.last + 1)) {
      if (this.unsentChunks.delete(tableId)) batch.chunks.push({ first: writer.first, last: writer.last, bytes: writer.bytes() });
      writer = undefined;
    }
    if (!writer) {
      // The match's blinds: its first hand's, or its schedule (a hand dealt at another level is encoded by the schedule).
      const { smallBlind, bigBlind } = hand.blindLevels ? hand.blindLevels[0] : hand.history;
      writer = new ChunkWriter({ smallBlind, bigBlind, blindLevels: hand.blindLevels, explicitCards: hand.explicitCards });
      this.chunkWriters.set(tableId, writer);
    }
    writer.append(hand.history);
    this.unsentChunks.add(tableId);
  }

  /** A batch leaves for the database: its table's chunk in progress goes with it, as it stands now. */
  private withChunkInProgress(batch: TableBatch): TableBatch {
    const writer = this.chunkWriters.get(batch.tableId);
    if (writer && this.unsentChunks.delete(batch.tableId)) batch.chunks.push({ first: writer.first, last: writer.last, bytes: writer.bytes() });
    return batch;
  }

  /** Resolves when the backlog (the whole node's, and this table's) is small enough for play to go on. */
  async backpressure(tableId: string): Promise<void> {
    while (this.draining && (this.pendingHands > MAX_PENDING_HANDS || (this.pending.get(tableId)?.hands.length ?? 0) > MAX_PENDING_HANDS_PER_TABLE)) {
      await new Promise<void>((resolve) => this.writeWaiters.push(resolve));
    }
  }

  /** Hand numbers up to `through` may be dealt at this table: written only while the lease stands. */
  async reserveHands(table: TableRuntime, through: number): Promise<void> {
    const fence = this.fence();
    const voided = table.voidedHands;
    await retryTransient(async () => {
      const rows = await queryRows(
        this.db,
        sql`update matches set hands_reserved = greatest(hands_reserved, ${through}::int), voided_hands = ${sql.param(voided)}::int[]
            where id = ${table.matchId} and ${leaseHolds(fence, table.tableId)} returning 1`,
      );
      if (rows.length === 0) throw fence ? new FencedError(fence) : new Error(`match ${table.matchId} has no row to reserve hands in`);
    }, this.retry);
    table.reservedThrough(through);
  }

  /**
   * Ends a match: its table's unwritten hands go into the match-end transaction, after any
   * earlier batch of the table already on its way to the database. Matches that end while
   * another match end is being written go together in the next transaction.
   */
  finish(outcome: MatchOutcome): Promise<void> {
    const lastBatch = this.take(outcome.tableId) ?? emptyBatch(outcome.tableId, outcome.matchId);
    const earlierWrite = this.inFlight;
    return new Promise<void>((resolve, reject) => {
      this.ending.push({ outcome, lastBatch, earlierWrite, resolve, reject });
      this.endingDrain ??= this.drainEndings();
    });
  }

  /** Forget a table (its match ended or was aborted). */
  release(tableId: string): void {
    this.take(tableId);
    this.failures.delete(tableId);
    this.chunkWriters.delete(tableId);
    this.unsentChunks.delete(tableId);
  }

  /** Resolves when everything recorded so far is written (shutdown, tests). */
  async flushed(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private take(tableId: string): TableBatch | undefined {
    const batch = this.pending.get(tableId);
    if (!batch) return undefined;
    this.pending.delete(tableId);
    this.pendingHands -= batch.hands.length;
    return this.withChunkInProgress(batch);
  }

  private async drain(): Promise<void> {
    // One macrotask first, so the hands of every table that finished one meanwhile go together.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.pending.size > 0) {
        const batches = [...this.pending.values()].map((batch) => this.withChunkInProgress(batch));
        this.pending = new Map();
        this.pendingHands = 0;
        const write = writeBatches(this.db, batches, new Date(this.clock.now()), this.fence(), this.retry);
        this.inFlight = write.then(
          () => {},
          () => {},
        );
        try {
          const lost = await write;
          for (const batch of lost) this.failures.set(batch.tableId, new FencedError(this.fence()!));
          for (const batch of batches) if (!lost.includes(batch) && batch.closures.length > 0) this.onSeatsClosed(batch.tableId, batch.closures);
        } catch (error) {
          this.log(`writing ${batches.length} table batch(es) failed; their matches stop`, error);
          for (const batch of batches) this.failures.set(batch.tableId, error);
        }
        this.wakeWriters();
      }
    } finally {
      this.draining = null;
      this.wakeWriters();
    }
  }

  private wakeWriters(): void {
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const wake of waiters) wake();
  }

  private async drainEndings(): Promise<void> {
    // One macrotask first, so matches that end at the same moment go together.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.ending.length > 0) {
        // Each waits for its table's earlier hands; those that end meanwhile join (twice at most, so
        // none waits forever); any arriving later go in the next transaction.
        let waited = 0;
        for (let round = 0; round < 2 && waited < this.ending.length; round++) {
          const arrived = this.ending.length;
          await Promise.all(this.ending.slice(waited, arrived).map((e) => e.earlierWrite));
          waited = arrived;
        }
        const group = this.ending.splice(0, waited);
        const ready: EndingMatch[] = [];
        for (const end of group) {
          const failure = this.failures.get(end.outcome.tableId);
          if (failure) end.reject(failure);
          else ready.push(end);
        }
        if (ready.length === 0) continue;
        try {
          await finishMatches(this.db, ready, this.fence(), this.retry);
          for (const end of ready) end.resolve();
        } catch (error) {
          if (ready.length === 1) ready[0].reject(error);
          // One match's failure (a lost lease on its table, say) must not end the others': each alone.
          else await Promise.all(ready.map((end) => finishMatches(this.db, [end], this.fence(), this.retry).then(end.resolve, end.reject)));
        }
      }
    } finally {
      this.endingDrain = null;
    }
  }
}
