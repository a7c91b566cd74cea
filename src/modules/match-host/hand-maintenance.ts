/**
 * What each node does for hand storage besides writing hands: it keeps the monthly partitions of
 * hand_chunks two months ahead (at start and daily), seals deck secrets an older version left in
 * plain form, and converts hands still stored as JSON into chunks in the background
 * (hand-conversion.ts; one node at a time, HANDS_CONVERSION=off opts a node out).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/index";
import type { DeckSeal } from "./deck-seal";
import { convertLegacyHands, sealPlainSecrets } from "./hand-conversion";

const DAY_MS = 86_400_000;

/** The partitions of this month and the next `ahead` months (UTC), created where missing. */
export async function ensureMonthlyPartitions(db: Db, now: Date, ahead = 2): Promise<void> {
  for (let i = 0; i <= ahead; i++) {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1)).toISOString().slice(0, 10);
    await db.execute(sql`select ensure_hand_chunks_partition(${month}::date)`);
  }
}

export class HandMaintenance {
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private work: Promise<void> | null = null;

  constructor(
    private readonly deps: { db: Db; deckSeal: DeckSeal; now: () => number; log: (message: string, error?: unknown) => void; convertLegacy: boolean },
  ) {}

  start(): void {
    this.stopped = false;
    this.work = this.startUp();
    this.timer = setInterval(() => void ensureMonthlyPartitions(this.deps.db, new Date(this.deps.now())).catch((error) => this.deps.log("creating next months' hand partitions failed (retried tomorrow, and at the next start)", error)), DAY_MS);
    this.timer.unref();
  }

  /** Resolves when the start-up work (partitions, sealing, this start's conversion pass) is over. */
  async settled(): Promise<void> {
    await this.work;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.work;
  }

  private async startUp(): Promise<void> {
    const { db, deckSeal, log } = this.deps;
    try {
      await ensureMonthlyPartitions(db, new Date(this.deps.now()));
      const sealed = await sealPlainSecrets(db, deckSeal);
      if (sealed > 0) log(`sealed the deck secrets of ${sealed} unfinished match(es) stored in plain form by an older version`);
      if (!this.deps.convertLegacy) return;
      const pass = await convertLegacyHands(db, deckSeal, { log, stop: () => this.stopped });
      if (pass.converted + pass.kept > 0) {
        log(`hand conversion: ${pass.hands} hands of ${pass.converted} match(es) moved from JSON into chunks; ${pass.kept} match(es) keep their JSON rows; ${pass.running} running match(es) wait for the next start`);
      }
    } catch (error) {
      log("hand storage maintenance failed (retried at the next start)", error);
    }
  }
}
