/**
 * Issue 27's attacks, each a bot file in fixtures/: for each, the failure kind, the fallback
 * action, a log line, the host's event loop ticking while it runs, another table's bot (on the
 * other worker) still deciding at speed, and nothing left behind for the next context.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sampleRequest } from "../../src/modules/hosted/sample.ts";
import { bundleBot, createSandbox, type FailureKind, type HostedSeat, type Sandbox } from "../../src/modules/hosted/sandbox/index.ts";
import { bundleFile, bundleFixture, ticksDuring } from "./support.ts";

setDefaultTimeout(30_000);

const DECISION_MS = 300;
let sandbox: Sandbox;
let starter: string;
/** A well-behaved bot at "another table", opened first so it has a worker to itself. */
let bystander: HostedSeat;

beforeAll(async () => {
  sandbox = createSandbox({ workers: 2, limits: { decisionMs: DECISION_MS }, graceMs: 700 });
  starter = await bundleFile(new URL("../../examples/starter-bot.ts", import.meta.url).pathname);
  bystander = await sandbox.open(starter, { botId: "bystander" });
});

afterAll(() => sandbox.close());

/** Runs the hostile decision while the bystander keeps deciding; returns both sides' figures. */
async function attack(fixture: string, expectedKinds: FailureKind | FailureKind[], logPattern: RegExp) {
  const kinds = [expectedKinds].flat();
  const seat = await sandbox.open(await bundleFixture(fixture), { botId: fixture });
  let hostileDone = false;
  let bystanderDecisions = 0;
  const other = (async () => {
    while (!hostileDone) {
      const d = await bystander.decide(sampleRequest("preflop", `b-${bystanderDecisions}`));
      expect(d.ok).toBe(true);
      bystanderDecisions++;
    }
  })();
  const { result: decision, ticks, ms } = await ticksDuring(async () => {
    try {
      return await seat.decide(sampleRequest("preflop"));
    } finally {
      hostileDone = true;
    }
  });
  await other;
  expect(decision.ok).toBe(false);
  if (decision.ok) return;
  expect(kinds).toContain(decision.kind);
  // No action comes back: what is played instead (the no-answer fallback) is the seat's, seats/decide.ts.
  expect("action" in decision).toBe(false);
  const host = seat.logs().filter((l) => l.source === "host");
  expect(host.some((l) => l.kind === decision.kind && /decision failed/.test(l.text))).toBe(true);
  expect(seat.logs().some((l) => logPattern.test(l.text))).toBe(true);
  // After the failure the same seat still answers (the context survives what the limits stopped).
  const next = await seat.decide(sampleRequest("flop", "after"));
  expect(seat.disabled).toBe(false);
  expect(next.ok ? "answered" : next.kind).not.toBe("disabled");
  await seat.close();
  return { decision, ticks, ms, bystanderDecisions };
}

/**
 * For an attack that ran its whole budget: the host's event loop kept ticking (a blocked loop would
 * count no 5 ms tick) and the bystander at another table kept deciding (a decision takes about a
 * millisecond), over the whole attack, which lasted at least its CPU budget.
 */
function expectOthersKeptGoing(r: { ms: number; ticks: number; bystanderDecisions: number }): void {
  expect(r.ms).toBeGreaterThanOrEqual(DECISION_MS);
  expect(r.ticks).toBeGreaterThan(r.ms / 5 / 4);
  expect(r.bystanderDecisions).toBeGreaterThan(10);
}

describe("hosted bot attacks", () => {
  test("an infinite loop (inside try/catch) is interrupted at its CPU budget", async () => {
    const before = sandbox.counts().workerReplacements;
    const r = await attack("infinite-loop", "timeout", /looping forever/);
    // Interrupted by its budget, in its own worker: not ended by the watchdog (which would have
    // replaced the worker, and lost the bot's own line, which attack() found).
    expect(r!.decision.ok ? null : r!.decision.message).toMatch(/ran past its 300 ms CPU budget/);
    expect(sandbox.counts().workerReplacements - before).toBe(0);
    expect(r!.decision.ms).toBeGreaterThanOrEqual(DECISION_MS);
    expect(r!.decision.ms).toBeLessThan(DECISION_MS + 200);
    expectOthersKeptGoing(r!);
  });

  test("an allocation bomb of many small arrays fails with memory at the 128 MiB a bot may hold (QuickJS's own limit does not count them in this build), in its own context", async () => {
    const before = sandbox.counts().workerReplacements;
    const r = await attack("allocation-bomb", "memory", /allocating/);
    // Its worker's memory could not grow for it past 128 MiB (memory.ts); nothing was replaced.
    expect(r!.decision.ok ? null : r!.decision.message).toMatch(/used more than the 128 MiB of memory a bot may hold/);
    expect(sandbox.counts().workerReplacements - before).toBe(0);
  });

  test("deep recursion ends in a stack overflow, not a crash", async () => {
    await attack("deep-recursion", "stack", /recursing/);
  });

  test("a 100 MB string hits the 64 MiB heap limit", async () => {
    await attack("huge-string", "memory", /building 100 MB/);
  });

  test("prototype pollution of what the host hands in changes nothing outside, and the answer is re-checked", async () => {
    const request = sampleRequest("preflop");
    const copy = structuredClone(request);
    const seat = await sandbox.open(await bundleFixture("prototype-pollution"));
    const decision = await seat.decide(request);
    expect(decision).toMatchObject({ ok: false, kind: "illegal" });
    expect("action" in decision).toBe(false); // what is played instead is the seat's (seats/decide.ts)
    expect(request).toEqual(copy); // the host's object is untouched: the guest got JSON
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse("1")).toBe(1);
    expect(seat.logs().some((l) => /polluted Object.prototype/.test(l.text))).toBe(true);
    await seat.close();
    await attack("prototype-pollution", "illegal", /polluted/);
  });

  test("probing globalThis finds no host object (process, Bun, require, fetch, timers, WebAssembly, shared memory)", async () => {
    await attack("probe-globals", "exception", /host objects found: none/);
  });

  test("the Function constructor reaches only the sandbox's own global", async () => {
    await attack("function-constructor", "exception", /undefined:undefined:undefined; global is the sandbox's: true/);
  });

  test("import() of a computed name fails at run time; a static import fails the build", async () => {
    await attack("dynamic-import", "exception", /importing node:fs/);
    const built = await bundleBot(await Bun.file(new URL("./fixtures/static-import.ts", import.meta.url)).text());
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.errors[0].message).toContain('cannot import "node:fs"');
  });

  test("a bot cannot read another bot's state or code, even in the same worker", async () => {
    const keeper = await sandbox.open(await bundleFixture("secret-keeper"), { botId: "keeper" });
    const secretHand = { ...sampleRequest("preflop"), holeCards: ["Qs", "Qd"] as [string, string] };
    expect((await keeper.decide(secretHand)).ok).toBe(true);
    // With two workers and the bystander on one, keeper and spy share the other worker.
    const r = await attack("spy", "exception", /loot: \{"secret":null,"mark":null,"cards":null,"guest":"undefined","globals":\[\]\}/);
    expect(r!.decision.ok).toBe(false);
    expect(keeper.logs().some((l) => l.text.includes("victim-secret-4f1c"))).toBe(true);
    await keeper.close();
  });

  test("a fresh context per match: what a bot left in one is gone in the next", async () => {
    const code = await bundleFixture("secret-keeper");
    const first = await sandbox.open(code);
    await first.decide(sampleRequest("preflop"));
    await first.close();
    const spy = await sandbox.open(await bundleFixture("spy"));
    const decision = await spy.decide(sampleRequest("preflop"));
    expect(decision).toMatchObject({ ok: false, kind: "exception" });
    await spy.close();
  });
});
