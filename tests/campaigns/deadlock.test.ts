/**
 * Once a server bug, found by two-processes.test.ts: cashout batches lock developer rows in
 * whatever order their seats come, so two concurrent batches (the hand journal and a match end,
 * in one process or across processes) deadlock; Postgres aborts one, and the match whose write
 * failed is aborted (a finished match recorded as aborted, or its table left "running").
 *
 * This reproduces it deterministically: batch 1 closes a seat of A then one of B, batch 2 a seat
 * of B then one of A. A third transaction holds the second seat of each, so each batch has
 * locked its first developer's row when it starts waiting; on release each needs the other's.
 *
 * Fixed: every multi-developer write locks its developers' rows first, in id order
 * (persistence.ts lockDevelopers), and retries a deadlock victim as a safety net. This test now
 * guards the fix: both batches must commit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { claimFaucetInDb } from "../../src/modules/credits/ledger";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
const { buyInInDb } = SEAT_LEDGER;
import { writeBatches, type TableBatch } from "../../src/modules/match-host/persistence";
import { createHarness, type Harness } from "../support/app";
import { pollUntil, rowsOf } from "./support";

let h: Harness & { testDb: { url: string } };

beforeAll(async () => {
  h = await createHarness("deadlock");
});
afterAll(() => h.close());

describe("concurrent cashout batches (once a deadlock)", () => {
  test("regression (deadlock): two cashout batches with developers in opposite order both commit", async () => {
    const db = h.database.db;
    const a = await h.registerDeveloper();
    const b = await h.registerDeveloper();
    const now = new Date(h.clock.now());
    for (const dev of [a, b]) await claimFaucetInDb(db, dev.developerId, 10_000, 0, now);
    const seat = async (dev: { developerId: string }, botId: string, tableId: string) =>
      (await buyInInDb(db, dev.developerId, 100, { botId, tableId, position: 0 }, now)).seatId;
    const [a1, b1, b2, a2] = [await seat(a, "bot_a1", "tbl_1"), await seat(b, "bot_b1", "tbl_2"), await seat(b, "bot_b2", "tbl_3"), await seat(a, "bot_a2", "tbl_4")];
    const batch = (tableId: string, closures: Array<[{ developerId: string }, number, string]>): TableBatch => ({
      tableId,
      matchId: `m_${tableId}`,
      hands: [],
      chunks: [],
      stacks: new Map(),
      closures: closures.map(([dev, seatId, botId]) => ({ developerId: dev.developerId, seatId, botId, chips: 100 })),
    });

    // A third session holds the seat rows each batch closes second, so each batch first takes
    // its first developer's row and then waits.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = db.transaction(async (tx) => {
      await tx.execute(sql`select seq from seats where seq in (${b1}, ${a2}) for update`);
      locked();
      await released;
    });
    await isLocked;

    // Batch 1 closes A's seat then B's; batch 2 closes B's seat then A's. Both queue behind the blocker.
    const first = writeBatches(db, [batch("tbl_1", [[a, a1, "bot_a1"], [b, b1, "bot_b1"]])], now).then(() => "ok", (e) => String(e?.cause?.code ?? e));
    const second = writeBatches(db, [batch("tbl_3", [[b, b2, "bot_b2"], [a, a2, "bot_a2"]])], now).then(() => "ok", (e) => String(e?.cause?.code ?? e));
    await pollUntil(
      "both batches to wait for a developer row",
      async () => (await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`))[0].n === 2,
      5_000,
      10,
    );
    release();
    await holding;
    const outcomes = await Promise.all([first, second]);
    // Both commit (before the fix, one failed with 40P01: deadlock detected).
    expect(outcomes).toEqual(["ok", "ok"]);
  });
});
