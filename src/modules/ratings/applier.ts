/**
 * Applies recorded matches to the ratings off the hot path (docs/RATINGS.md). Recording a rated
 * match only marks it `rating_pending`; this applier, on every node, takes pending matches in
 * record order (ended_at, id), computes each player's raw and adjusted sums from the stored hand
 * histories in a worker thread (luck-thread.ts: the equity enumeration never blocks the event
 * loop), then applies them in one short transaction under the ratings lock (store.ts), which
 * skips any match another node applied meanwhile: each match is applied exactly once.
 *
 * It runs when this node records a match (nudge), every `pollMs` for the matches other nodes
 * recorded (start), and on demand (settled: tests, the bench).
 */
import { RATINGS_APPLY_BATCH, RATINGS_BUSY_CPU, RATINGS_BUSY_WINDOW_MS, RATINGS_MAX_DEFER_MS } from "../../config";
import type { Db } from "../../db";
import type { Log } from "../../lib/log";
import { LuckThread, UnratableMatch } from "./luck-thread";
import { applyPendingMatches, pendingMatches, recordedMatchStored, type ComputedMatch } from "./store";
import type { StoredMatchPart } from "../match-host/recorded-hands";

export class RatingsApplier {
  private readonly luck = new LuckThread();
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The loop in progress: it ends after a pass that found nothing pending. */
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Set by settled(): the passes it waits for do not yield to play (tests and benches ask once play is over). */
  private eager = false;
  /** This process's CPU time and the ratings worker's share of it at the last look (yieldToPlay). */
  private sample = this.takeSample();

  constructor(private readonly deps: { db: Db; log: Log; pollMs: number }) {}

  /** Polls for matches other nodes recorded (server.ts starts it on every node). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.nudge(), this.deps.pollMs);
    this.timer.unref();
  }

  /** A match was recorded (or may have been): look for pending matches now. */
  nudge(): void {
    if (this.stopped) return;
    this.again = true;
    this.running ??= this.loop().finally(() => (this.running = null));
  }

  /** Resolves once a pass begun after this call found nothing pending (everything recorded before it is applied). */
  settled(): Promise<void> {
    this.eager = true;
    this.nudge();
    return this.running ?? Promise.resolve();
  }

  /** The worker thread's computing so far: milliseconds and hands (bench:e2e prints the cost per hand). */
  workerCost(): { ms: number; hands: number } {
    return { ms: this.luck.computeMs, hands: this.luck.handsComputed };
  }

  /**
   * No pass starts any more, and the worker thread ends at once: the match it was computing (a
   * long match's reference replays can take seconds on a busy node) stays pending for the next
   * applier, so a drain never waits on it. A pass already writing its batch finishes.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.luck.close();
    await this.running;
  }

  private async loop(): Promise<void> {
    try {
      await this.passes();
    } finally {
      this.eager = false;
    }
  }

  private async passes(): Promise<void> {
    while (this.again && !this.stopped) {
      this.again = false;
      try {
        // Whatever one pass took, the next may find more (a full batch, or matches recorded meanwhile).
        if ((await this.pass()) > 0) this.again = true;
      } catch (error) {
        // The database or the worker failed (or the worker was ended by stop()): the matches stay pending, the next nudge or poll retries.
        if (!this.stopped) this.deps.log("applying rated matches failed (they stay pending; retried at the next poll)", error);
      }
    }
  }

  /** One batch: the oldest pending matches computed in order, then applied. Returns how many it found. */
  private async pass(): Promise<number> {
    const ids = await pendingMatches(this.deps.db, RATINGS_APPLY_BATCH);
    const computed: ComputedMatch[] = [];
    const found = performance.now();
    for (const matchId of ids) {
      await this.yieldToPlay(found);
      if (this.stopped) break;
      const { botIds, parts } = await recordedMatchStored(this.deps.db, matchId);
      computed.push({ matchId, rated: await this.ratedOf(matchId, botIds, parts) });
    }
    await applyPendingMatches(this.deps.db, computed);
    return ids.length;
  }

  /**
   * Waits while this process is busy with play: more than RATINGS_BUSY_CPU of a core over the last
   * window, the ratings worker's own computing left out. Gives up waiting RATINGS_MAX_DEFER_MS after
   * the batch was found, so a node busy for good still rates its matches.
   */
  private async yieldToPlay(found: number): Promise<void> {
    while (!this.eager && !this.stopped && performance.now() - found < RATINGS_MAX_DEFER_MS) {
      const elapsed = performance.now() - this.sample.at;
      if (elapsed > 2 * RATINGS_BUSY_WINDOW_MS) {
        // A sample older than two windows says nothing of now: start a fresh one.
        this.sample = this.takeSample();
        await Bun.sleep(RATINGS_BUSY_WINDOW_MS);
        continue;
      }
      if (elapsed < RATINGS_BUSY_WINDOW_MS) {
        await Bun.sleep(RATINGS_BUSY_WINDOW_MS - elapsed);
        continue;
      }
      const now = this.takeSample();
      const playMs = (now.cpuMicros - this.sample.cpuMicros) / 1000 - (now.luckMs - this.sample.luckMs);
      this.sample = now;
      if (playMs < RATINGS_BUSY_CPU * elapsed) return;
    }
  }

  private takeSample() {
    const cpu = process.cpuUsage();
    return { at: performance.now(), cpuMicros: cpu.user + cpu.system, luckMs: this.luck.computeMs };
  }

  private async ratedOf(matchId: string, botIds: string[], parts: StoredMatchPart[]): Promise<ComputedMatch["rated"]> {
    try {
      return await this.luck.results(botIds, parts);
    } catch (error) {
      if (!(error instanceof UnratableMatch)) throw error;
      // Its histories break an invariant of the adjustment: retrying would fail the same way and hold up every later match.
      this.deps.log(`match ${matchId} cannot be rated (its hand histories fail the adjustment): left out of the ratings`, error);
      return null;
    }
  }
}
