/**
 * One tenant cannot hurt another (issue 32), in the sandbox itself: a bot that stalls its worker
 * where no interrupt reaches, and bots that hold 56 MiB, beside well-behaved bots on the same
 * worker. The well-behaved ones decide every time, without a failure; the sandbox's memory stays
 * within its bound and comes back when the bots are gone.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sampleRequest } from "../../src/modules/hosted/sample.ts";
import { createSandbox, type HostedSeat, type Sandbox } from "../../src/modules/hosted/sandbox/index.ts";
import { until } from "../support/nodes.ts";
import { bundleFixture } from "./support.ts";

setDefaultTimeout(60_000);

const MIB = 1024 * 1024;
const sandboxes: Sandbox[] = [];
afterAll(() => Promise.all(sandboxes.map((s) => s.close())));

const counterCode = await bundleFixture("counter");
const request = (i: number) => ({ ...sampleRequest(i % 2 ? "flop" : "preflop"), requestId: `r${i}` });
const hostLines = (seat: HostedSeat, pattern: RegExp) => seat.logs().filter((l) => l.source === "host" && pattern.test(l.text));
const botLines = (seat: HostedSeat) => seat.logs().filter((l) => l.source === "bot").map((l) => l.text);

describe("a worker replaced for one bot's stall", () => {
  test("hurts only that bot: it fails (timeout, its own log line kept) and moves to a worker of its own; the bots beside it are rebuilt and keep deciding, without a failure", async () => {
    const sandbox = createSandbox({ workers: 1, maxWorkers: 2, limits: { decisionMs: 300 }, graceMs: 300 });
    sandboxes.push(sandbox);
    // One match: the stalling bot and three counters share one worker.
    const stall = await sandbox.open(await bundleFixture("native-stall"), { group: "m" });
    const counters = await Promise.all([1, 2, 3].map(() => sandbox.open(counterCode, { group: "m" })));
    expect((await sandbox.stats()).workers).toBe(1);
    for (const counter of counters) for (let i = 0; i < 2; i++) expect((await counter.decide(request(i))).ok).toBe(true);

    // The stall runs; the counters' next decisions wait behind it on the same worker.
    const stalled = stall.decide(request(2));
    const waiting = counters.map((counter) => counter.decide(request(3)));
    const [stallDecision, ...counterDecisions] = await Promise.all([stalled, ...waiting]);
    expect(stallDecision.ok ? null : stallDecision.kind).toBe("timeout");
    expect(stallDecision.ok ? null : stallDecision.message).toMatch(/ms of CPU time without being interruptible during this call and was replaced/);
    expect(botLines(stall)).toEqual(["stalling in native code"]);
    expect(counterDecisions.map((d) => d.ok)).toEqual([true, true, true]);
    expect(sandbox.counts().workerReplacements).toBe(1);
    for (const counter of counters) {
      expect(hostLines(counter, /the context was restarted/)).toHaveLength(1);
      // Rebuilt: its memory from before is gone, so the count starts again, and the call was answered.
      expect(botLines(counter)).toEqual(["decision 1", "decision 2", "decision 1"]);
      expect(counter.failures).toBe(0);
    }

    // It stalls again: on a worker of its own now, so only that worker is replaced, and the
    // counters, deciding meanwhile, are not touched.
    const again = stall.decide(request(4));
    let meanwhile = 0;
    for (let i = 0; i < 5; i++) for (const counter of counters) meanwhile += (await counter.decide(request(5 + i))).ok ? 1 : 0;
    const secondStall = await again;
    expect(secondStall.ok ? null : secondStall.kind).toBe("timeout");
    expect(hostLines(stall, /reopened on a worker of its own/)).toHaveLength(1);
    expect(meanwhile).toBe(15);
    expect(sandbox.counts().workerReplacements).toBe(2);
    for (const counter of counters) {
      expect(hostLines(counter, /the context was restarted/)).toHaveLength(1);
      expect(counter.failures).toBe(0);
    }
    for (const seat of [stall, ...counters]) await seat.close();
  });
});

describe("memory", () => {
  test("bots holding 56 MiB beside light bots on one worker: the light ones decide every time; the sandbox's memory stays within its bound, bots past the heavy share fail with memory; closed, the memory comes back", async () => {
    const totalBytes = 512 * MIB;
    const sandbox = createSandbox({ workers: 1, maxWorkers: 2, memoryBytes: totalBytes, limits: { decisionMs: 5_000 } });
    sandboxes.push(sandbox);
    expect(sandbox.memory).toMatchObject({ totalBytes, heavyBytes: 256 * MIB, lightBytes: 8 * MIB, contextBytes: 128 * MIB });
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    const hogCode = await bundleFixture("memory-hog");
    const hogs = await Promise.all(Array.from({ length: 6 }, () => sandbox.open(hogCode, { group: "m" })));
    const light = await Promise.all(Array.from({ length: 6 }, () => sandbox.open(counterCode, { group: "m" })));
    expect((await sandbox.stats()).workers).toBe(1);

    let lightDecisions = 0;
    let lightFailures = 0;
    const hogOutcomes: string[] = [];
    let peakMemory = 0;
    let peakRss = 0;
    for (let round = 0; round < 3; round++) {
      for (const hog of hogs) {
        const d = await hog.decide(request(round));
        hogOutcomes.push(d.ok ? "ok" : d.kind === "memory" ? `memory: ${d.message}` : d.kind);
        for (const seat of light) {
          const l = await seat.decide(request(round));
          lightDecisions++;
          if (!l.ok) lightFailures++;
        }
        peakMemory = Math.max(peakMemory, (await sandbox.stats()).memoryBytes);
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }
    }
    expect(lightDecisions).toBe(3 * 6 * 6);
    expect(lightFailures).toBe(0);
    // 256 MiB of heavy growth holds five 56 MiB arrays (each ~48 MiB past its first 8), not six.
    const holding = hogs.filter((hog) => botLines(hog).some((line) => line === "holding 56 MiB"));
    const refused = hogOutcomes.filter((o) => o.startsWith("memory"));
    expect(holding.length).toBeGreaterThanOrEqual(4);
    expect(holding.length).toBeLessThan(6);
    expect(refused.length).toBeGreaterThan(0);
    for (const outcome of refused) expect(outcome).toMatch(/needed more than 8 MiB while the 256 MiB the sandbox gives bots above that were in use by others/);
    expect(hogOutcomes.filter((o) => o !== "ok" && !o.startsWith("memory") && o !== "disabled")).toEqual([]);
    expect(peakMemory).toBeLessThanOrEqual(totalBytes);
    expect(peakMemory).toBeGreaterThan(holding.length * 56 * MIB);

    for (const seat of [...hogs, ...light]) await seat.close();
    // The worker held nothing and had grown: it was recycled, its memory back to the budget.
    const after = await until(async () => {
      const stats = await sandbox.stats();
      return stats.memoryBytes <= 32 * MIB ? stats : null;
    }, 20_000, "the grown worker recycled");
    expect(sandbox.counts().workerRecycles).toBeGreaterThanOrEqual(1);
    expect(after.contexts).toBe(0);
    const rssAfter = await until(async () => {
      Bun.gc(true);
      const rss = process.memoryUsage().rss;
      return rss - rssBefore < 100 * MIB ? rss : null;
    }, 20_000, "the process's memory given back");
    console.log(
      `[tenants] ${holding.length} bots held 56 MiB beside 6 light ones: sandbox memory peak ${peakMemory >> 20} MiB (bound ${totalBytes >> 20}), ` +
        `process RSS +${(peakRss - rssBefore) >> 20} MiB at the peak, +${(rssAfter - rssBefore) >> 20} MiB after the recycle`,
    );
  });
});
