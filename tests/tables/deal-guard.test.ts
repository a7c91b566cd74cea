/** The deal guard's waits are bounded: a hand whose number is never reserved, or whose lease never stands, stops its match with a clear error. */
import { describe, expect, test } from "bun:test";
import { DEAL_WAIT_LIMIT_MS, DealGuard, DealStalledError, RESERVATION_BLOCK, type HandReservations } from "../../src/modules/match-host/deal-guard";
import { TableRuntime } from "../../src/modules/tables/runtime";

/** A table whose match is under way, its hand numbers reserved through `handsReserved`. */
function tableAt(handsReserved: number): TableRuntime {
  const table = new TableRuntime("tbl_guarded", "dev_guarded", new Date(0), { buyIn: 1_000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 10, actionTimeoutMs: 1_000 });
  table.beginMatch("m_guarded", 0);
  table.reservedThrough(handsReserved);
  return table;
}

/** Reservations that land at once (as the journal's do while the database answers). */
const granting: HandReservations = {
  async reserveHands(table, through) {
    table.reservedThrough(through);
  },
};
/** Reservations that never land (a database that swallows the statement). */
const hanging: HandReservations = { reserveHands: () => new Promise<void>(() => {}) };

const WAIT_MS = 100;

describe("the deal guard waits, but not forever", () => {
  test("the limit is long past a takeover: a minute", () => {
    expect(DEAL_WAIT_LIMIT_MS).toBe(60_000);
  });

  test("a reserved hand under a standing lease is dealt at once; the next block is reserved ahead", async () => {
    const table = tableAt(RESERVATION_BLOCK);
    const guard = new DealGuard(table, granting, () => true, WAIT_MS);
    await guard.beforeDeal(1);
    await guard.beforeDeal(RESERVATION_BLOCK / 2 + 1);
    // Half the block left at hand 33: the next block, after the numbers already reserved.
    expect(table.handsReserved).toBe(2 * RESERVATION_BLOCK);
  });

  test("a lease that stands again before the limit: the hand is dealt", async () => {
    let checks = 0;
    // Not standing for its first five looks (a renewal that was late), then standing.
    const guard = new DealGuard(tableAt(RESERVATION_BLOCK), granting, () => ++checks > 5);
    await guard.beforeDeal(1);
    expect(checks).toBeGreaterThan(5);
  });

  test("a lease that never stands: the hand is not dealt, and the match stops with DealStalledError naming the table and the lease", async () => {
    const guard = new DealGuard(tableAt(RESERVATION_BLOCK), granting, () => false, WAIT_MS);
    const stalled = await guard.beforeDeal(1).then(
      () => null,
      (error: unknown) => error,
    );
    expect(stalled).toBeInstanceOf(DealStalledError);
    expect((stalled as Error).message).toBe("table tbl_guarded: waited 0.1 s for this node's lease to stand (is the database reachable?): the match stops");
    // A message of the hand in play waits the same way, and stops the same way.
    const message = guard.standing();
    expect(message).toBeInstanceOf(Promise);
    await expect(message!).rejects.toBeInstanceOf(DealStalledError);
  });

  test("a reservation that never lands: the hand is not dealt, and the match stops with DealStalledError naming the hand", async () => {
    const table = tableAt(0);
    const guard = new DealGuard(table, hanging, () => true, WAIT_MS);
    await expect(guard.beforeDeal(1)).rejects.toThrow("table tbl_guarded: waited 0.1 s for hand 1's number to be reserved (is the database reachable?): the match stops");
    expect(table.handsReserved).toBe(0);
  });

  test("a shutdown ends the wait at once, as before", async () => {
    const table = tableAt(0);
    const guard = new DealGuard(table, hanging, () => true);
    const waiting = guard.beforeDeal(1);
    table.requestStop();
    await expect(waiting).rejects.toThrow("the server is shutting down");
  });
});
