import { describe, expect, test } from "bun:test";
import { threadCpuClock } from "../../src/modules/hosted/sandbox/cpu-clock";

// The sandbox counts a bot's budget in its thread's CPU time (docs/HOSTED.md): the clock must move
// while the thread computes and stand still while it waits.
describe("sandbox time (cpu-clock.ts)", () => {
  test("on Linux the clock counts this thread's computing, not its waiting", async () => {
    const clock = threadCpuClock();
    const beforeSpin = clock();
    const spinUntil = performance.now() + 60;
    while (performance.now() < spinUntil);
    const afterSpin = clock();
    await Bun.sleep(150);
    const afterSleep = clock();
    // Computing 60 ms of wall time on this thread: at least a tick (10 ms) of CPU time, at most the wall time.
    expect(afterSpin - beforeSpin).toBeGreaterThanOrEqual(10);
    expect(afterSpin - beforeSpin).toBeLessThanOrEqual(80);
    // Sleeping 150 ms: far less than that (the wall clock would count all of it).
    expect(afterSleep - afterSpin).toBeLessThan(50);
  });
});
