import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { createSandbox } from "../../src/modules/hosted/sandbox/index.ts";
import { sampleRequest } from "../../src/modules/hosted/sample.ts";
import { until } from "../support/nodes";
import { bundleFile, bundleFixture } from "./support";

// Worker threads on a shared, loaded machine: these wait on the sandbox, not on a clock.
setDefaultTimeout(30_000);

const sandbox = createSandbox({ workers: 2, maxWorkers: 4, idleWorkerMs: 0 });
afterAll(() => sandbox.close());

const starter = await bundleFile(new URL("../../examples/starter-bot.ts", import.meta.url).pathname);
const looping = await bundleFixture("infinite-loop");

/** Resolves once the looping bot's call is under way in its worker: its first line (sent as written) has arrived. */
const loopRunning = (seat: { logs(): Array<{ text: string }> }) =>
  until(async () => seat.logs().some((line) => line.text.includes("looping forever")), 10_000, "the looping bot's first line");

// SandboxPool.pick: a match's seats share a worker, each match gets its own while there are fewer
// than maxWorkers, and a worker beyond the minimum ends when it holds nothing.
describe("the sandbox's workers per match", () => {
  test("a group's contexts share a worker; new groups take empty or new workers up to the maximum; idle extras retire", async () => {
    const a1 = await sandbox.open(starter, { group: "a" });
    const a2 = await sandbox.open(starter, { group: "a" });
    const b = await sandbox.open(starter, { group: "b" });
    expect((await sandbox.stats()).workers).toBe(2);
    const c = await sandbox.open(starter, { group: "c" });
    const d = await sandbox.open(starter, { group: "d" });
    expect((await sandbox.stats()).workers).toBe(4);
    // Past the maximum, a new group shares the least loaded worker.
    const e = await sandbox.open(starter, { group: "e" });
    const atMost = await sandbox.stats();
    expect(atMost.workers).toBe(4);
    expect(atMost.contexts).toBe(6);
    for (const seat of [c, d, e]) await seat.close();
    // c's and d's workers were extras (beyond the two that always run): they ended.
    const after = await sandbox.stats();
    expect(after.workers).toBe(2);
    expect(after.contexts).toBe(3);
    for (const seat of [a1, a2, b]) await seat.close();
    expect((await sandbox.stats()).contexts).toBe(0);
  });

  test("a bot looping to its budget in one match does not hold up a decision in another", async () => {
    const looper = await sandbox.open(looping, { group: "looping-match" });
    const other = await sandbox.open(starter, { group: "other-match" });
    const finished: string[] = [];
    const loop = looper.decide(sampleRequest("flop"), { budgetMs: 1_500 }).then((d) => (finished.push("looper"), d));
    await loopRunning(looper);
    const decisions = [];
    for (let i = 0; i < 20; i++) decisions.push(await other.decide({ ...sampleRequest(i % 2 ? "flop" : "preflop"), requestId: `o${i}` }));
    finished.push("other");
    const looped = await loop;
    expect(decisions.filter((d) => d.ok).length).toBe(20);
    expect(looped.ok ? null : looped.kind).toBe("timeout");
    // All twenty decisions of the other match were made while the looper was still spending its budget.
    expect(finished).toEqual(["other", "looper"]);
    await looper.close();
    await other.close();
  });
});

describe("a long call that holds up another match is moved off the shared worker", () => {
  test("the looping bot is stopped after ~50 ms, moves to a worker of its own and loops there; the bot beside it decides at once", async () => {
    const pool = createSandbox({ workers: 2, maxWorkers: 3, idleWorkerMs: 0 });
    try {
      const beside = await pool.open(starter, { group: "a" });
      const b = await pool.open(starter, { group: "b" });
      const c = await pool.open(starter, { group: "c" });
      // Three groups on three workers (the maximum): a new group must share one.
      expect((await pool.stats()).workers).toBe(3);
      const looper = await pool.open(looping, { group: "x" });
      await c.close(); // c's worker (an extra) retires: room for one worker of its own
      expect((await pool.stats()).workers).toBe(2);
      // Make sure the looper shares a worker with `beside` or `b`: both shared workers hold one context each.
      const finished: string[] = [];
      const loop = looper.decide(sampleRequest("flop"), { budgetMs: 1_500 }).then((d) => (finished.push("looper"), d));
      // Looping on the shared worker: the next call queued there waits behind it.
      await loopRunning(looper);
      const decisions = [];
      for (let i = 0; i < 10; i++) {
        for (const seat of [beside, b]) decisions.push(await seat.decide({ ...sampleRequest(i % 2 ? "flop" : "preflop"), requestId: `s${i}` }));
      }
      finished.push("others");
      const looped = await loop;
      expect(decisions.filter((d) => d.ok).length).toBe(20);
      expect(finished).toEqual(["others", "looper"]);
      expect(looped.ok ? null : looped.kind).toBe("timeout");
      const moved = looper.logs().filter((line) => line.source === "host" && /moved to a worker of its own/.test(line.text));
      expect(moved.length).toBe(1);
      expect(pool.counts()).toEqual({ preemptions: 1, workerReplacements: 0, workerRecycles: 0 });
      // The looper ran alone on a third worker.
      expect((await pool.stats()).workers).toBe(3);
      for (const seat of [beside, b, looper]) await seat.close();
    } finally {
      await pool.close();
    }
  });

  test("a long call runs only on idle cores (SCHED_IDLE) and its worker returns to the normal policy after it", async () => {
    // Linux: a thread's scheduling policy is field 41 of /proc/self/task/<tid>/stat (5 = SCHED_IDLE).
    const workerPolicies = () =>
      readdirSync("/proc/self/task").flatMap((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        if (!/\(Worker\)/.test(stat)) return [];
        return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[41 - 3])];
      });
    const idleBefore = workerPolicies().filter((p) => p === 5).length;
    const looper = await sandbox.open(looping, { group: "idle-check" });
    let answered = false;
    const call = looper.decide(sampleRequest("flop"), { budgetMs: 600 }).then((d) => ((answered = true), d));
    // While the call runs, its worker turns SCHED_IDLE (waited for as it happens, not sampled at a guess).
    const during = await until(async () => {
      const policies = workerPolicies();
      return policies.filter((p) => p === 5).length === idleBefore + 1 && policies;
    }, 10_000, "the looping call's worker to turn SCHED_IDLE");
    expect(answered).toBe(false);
    const decision = await call;
    const after = workerPolicies();
    expect(decision.ok ? null : decision.kind).toBe("timeout");
    expect(during.filter((p) => p === 5).length).toBe(idleBefore + 1);
    expect(after.filter((p) => p === 5).length).toBe(idleBefore);
    expect(after.length).toBeGreaterThan(0);
    await looper.close();
  });
});
