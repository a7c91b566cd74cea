import { describe, expect, test } from "bun:test";
import { threadCpuClock } from "../../src/modules/hosted/sandbox/cpu-clock";

// The sandbox counts a bot's budget in its thread's CPU time (docs/HOSTED.md): the clock must move
// while the thread computes and stand still while it waits.
describe("sandbox time (cpu-clock.ts)", () => {
  test("on Linux the clock counts this thread's computing, not its waiting", async () => {
    const clock = threadCpuClock();
    const beforeSpin = clock();
    const wallStart = performance.now();
    // Compute until the clock has counted 30 ms (on a loaded machine that takes longer on the wall
    // clock, never less); give up after 10 s of wall time (a clock that does not move).
    while (clock() - beforeSpin < 30 && performance.now() - wallStart < 10_000);
    const afterSpin = clock();
    const spinWall = performance.now() - wallStart;
    expect(afterSpin - beforeSpin).toBeGreaterThanOrEqual(30);
    // CPU time of one thread is never more than the wall time it took (a tick of slack).
    expect(afterSpin - beforeSpin).toBeLessThanOrEqual(spinWall + 10);
    // Waiting is the thing measured here: sleeping 150 ms counts far less (the wall clock would count all of it).
    await Bun.sleep(150);
    const afterSleep = clock();
    expect(afterSleep - afterSpin).toBeLessThan(50);
  });
});
