import type { Db } from "../../db";
import type { Clock } from "../../lib/clock";
import { emptyBatch, finishMatch, writeBatch, type Batch, type HandRecord, type MatchOutcome, type SeatClosure } from "./persistence";

/** Above this many unwritten hands the match waits for the database (backpressure). */
const MAX_PENDING_HANDS = 200;

/**
 * Writes one table's completed hands in the background, batched: while one transaction runs,
 * the next hands accumulate and go together in the next. Play never waits for the database
 * unless it falls far behind. Order is kept: one transaction at a time.
 */
export class TableWriter {
  private pending: Batch = emptyBatch();
  private running: Promise<void> | null = null;
  private failure: unknown = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly tableId: string,
    private readonly matchId: string,
  ) {}

  /** A write failed: the match must stop (the table is then aborted from what was written). */
  get failed(): unknown {
    return this.failure;
  }

  record(hand: HandRecord | null, stacks: Map<string, number>, closures: SeatClosure[]): void {
    if (hand) this.pending.hands.push(hand);
    for (const [seatId, chips] of stacks) this.pending.stacks.set(seatId, chips);
    for (const closure of closures) {
      this.pending.stacks.delete(closure.seatId);
      this.pending.closures.push(closure);
    }
    this.kick();
  }

  private kick(): void {
    if (this.running) return;
    const run = this.drain();
    this.running = run;
    void run.finally(() => {
      if (this.running === run) this.running = null;
    });
  }

  /** Resolves when the backlog is small enough for play to go on. */
  async backpressure(): Promise<void> {
    while (this.pending.hands.length > MAX_PENDING_HANDS && this.running && !this.failure) await this.running;
  }

  async finish(outcome: MatchOutcome): Promise<void> {
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
    const last = this.take();
    await finishMatch(this.db, outcome, last);
  }

  private take(): Batch {
    const batch = this.pending;
    this.pending = emptyBatch();
    return batch;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.failure && (this.pending.hands.length > 0 || this.pending.closures.length > 0 || this.pending.stacks.size > 0)) {
        await writeBatch(this.db, this.matchId, this.tableId, this.take(), new Date(this.clock.now()));
      }
    } catch (error) {
      this.failure = error;
    }
  }
}
