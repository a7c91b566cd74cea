/** Upload validation (a pure service function) and the sandbox's everyday behaviour: SDK parity, hooks, fallback, fold-after-failures. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as sdk from "@poker-bots/sdk";
import { AppError } from "../../src/lib/errors.ts";
import { sampleHandStarted, sampleMatchStarted, sampleRequest } from "../../src/modules/hosted/sample.ts";
import * as pure from "../../src/modules/hosted/sandbox/sdk-pure.ts";
import { bundleBot, createSandbox, type Sandbox } from "../../src/modules/hosted/sandbox/index.ts";
import { MAX_SOURCE_BYTES, validateUpload } from "../../src/modules/hosted/upload.ts";
import { bundleFixture, FIXTURES } from "./support.ts";

setDefaultTimeout(30_000);

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = createSandbox({ workers: 1, limits: { decisionMs: 300, failuresPerMatch: 3 } });
});
afterAll(() => sandbox.close());

const fixture = (name: string) => Bun.file(new URL(`${name}.ts`, FIXTURES)).text();

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(() => null, (e) => e);
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("validateUpload", () => {
  test("the starter bot is accepted unchanged", async () => {
    const source = await Bun.file(new URL("../../examples/starter-bot.ts", import.meta.url)).text();
    const result = await validateUpload(source, sandbox, "text/typescript");
    expect(result.bytes).toBe(new TextEncoder().encode(source).byteLength);
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.bundled).not.toContain("WebSocket");
    expect(result.bundled).not.toContain("node:fs");
  });

  test("a file that does not build: 400 with the build errors", async () => {
    const e = await rejection(validateUpload("export default defineBot({ decide( {", sandbox, "text/typescript"));
    expect(e.status).toBe(400);
    expect(e.toBody().error).toMatchObject({ code: "VALIDATION_ERROR", details: { stage: "build" } });
    expect((e.details as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
  });

  test("a file that imports a host module: 400, build stage", async () => {
    const e = await rejection(validateUpload(await fixture("static-import"), sandbox));
    expect(e.details).toMatchObject({ stage: "build", errors: [{ message: expect.stringContaining("node:fs") }] });
  });

  test("no default bot, or top-level code that throws: 400, load stage", async () => {
    const none = await rejection(validateUpload(await fixture("no-default"), sandbox));
    expect(none.details).toMatchObject({ stage: "load", kind: "exception", error: expect.stringContaining("no default bot") });
    const throws = await rejection(validateUpload(await fixture("throws-on-load"), sandbox));
    expect(throws.details).toMatchObject({ stage: "load", error: expect.stringContaining("no config here") });
  });

  test("a bot that fails the smoke decision: 400 with the runtime error and its logs", async () => {
    const e = await rejection(validateUpload(await fixture("infinite-loop"), sandbox));
    expect(e.status).toBe(400);
    expect(e.details).toMatchObject({ stage: "smoke", kind: "timeout" });
    expect(JSON.stringify(e.details)).toContain("looping forever");
  });

  test("too large (413), wrong type (415), not UTF-8 or empty (400)", async () => {
    expect((await rejection(validateUpload("x".repeat(MAX_SOURCE_BYTES + 1), sandbox))).toBody().error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { maxBytes: MAX_SOURCE_BYTES } });
    expect((await rejection(validateUpload("x", sandbox, "application/json"))).toBody().error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect((await rejection(validateUpload(new Uint8Array([0xff, 0xfe, 0x00]), sandbox))).details).toMatchObject({ stage: "read" });
    expect((await rejection(validateUpload("  \n", sandbox))).details).toMatchObject({ stage: "read" });
  });
});

describe("the hosted SDK", () => {
  test("exports the same names as @poker-bots/sdk (network parts as stubs)", () => {
    expect(Object.keys(pure).sort()).toEqual(Object.keys(sdk).sort());
  });

  test("decide() gets the SDK's state: hooks ran, position and button known, the clock frozen at the host's time", async () => {
    const seat = await sandbox.open(await bundleFixture("hook-counter"));
    expect((await seat.notify(sampleMatchStarted())).ok).toBe(true);
    expect((await seat.notify(sampleHandStarted())).ok).toBe(true);
    const now = Date.UTC(2030, 0, 1);
    const decision = await seat.decide(sampleRequest("preflop", "r1", now), { nowMs: now });
    expect(decision).toMatchObject({ ok: true, action: { action: "call" } });
    const line = seat.logs().find((l) => l.text.startsWith("hands="))!.text;
    expect(line).toBe(`hands=1 position=button button=0 legal=fold/call/raise now=${now} deadline=${now + 1_000}`);
    await seat.close();
  });

  test("three failures in a match: folded for the rest of it, without running the bot again", async () => {
    const seat = await sandbox.open(await bundleFixture("function-constructor"));
    const kinds = [];
    for (let i = 0; i < 4; i++) {
      const d = await seat.decide(sampleRequest("flop", `r${i}`));
      kinds.push(d.ok ? "ok" : d.kind);
      // What is played instead (check when free, then fold) is the seat's: tests/seats/decide.test.ts.
      expect(seat.disabled).toBe(i >= 2);
    }
    expect(kinds).toEqual(["exception", "exception", "exception", "disabled"]);
    expect(seat.logs().filter((l) => l.source === "host" && l.kind === "disabled")).toHaveLength(1);
    expect((await sandbox.stats()).contexts).toBe(0); // the disabled bot's context was freed
    await seat.close();
  });

  test("log volume per match is capped, with one line saying so", async () => {
    const limited = createSandbox({ workers: 1, limits: { logLinesPerMatch: 3 } });
    try {
      const built = await bundleBot(`import { defineBot, check } from "@poker-bots/sdk";
        export default defineBot({ decide() { for (let i = 0; i < 100; i++) console.log("line", i); return check(); } });`);
      if (!built.ok) throw new Error("build");
      const seat = await limited.open(built.code);
      await seat.decide(sampleRequest("flop"));
      await seat.decide(sampleRequest("flop"));
      expect(seat.logs().map((l) => [l.source, l.text])).toEqual([
        ["bot", "line 0"],
        ["bot", "line 1"],
        ["bot", "line 2"],
        ["host", "log limit reached (3 lines or 64 KiB per match): later lines are dropped"],
      ]);
      await seat.close();
    } finally {
      await limited.close();
    }
  });

  test("each context has its own log budget: the two copies of a duplicate match keep the limit's lines each, and one copy's logging never fills the other's", async () => {
    const limited = createSandbox({ workers: 1, limits: { logLinesPerMatch: 5 } });
    try {
      const built = await bundleBot(`import { defineBot, check } from "@poker-bots/sdk";
        let n = 0;
        export default defineBot({ decide() { n++; for (let i = 0; i < 3; i++) console.log("call", n, "line", i); return check(); } });`);
      if (!built.ok) throw new Error("build");
      // As a duplicate pair opens them (hosted/players.ts): one context per copy, no budget passed, so each its own.
      const copies = [await limited.open(built.code, { group: "pair" }), await limited.open(built.code, { group: "pair" })];
      for (let round = 0; round < 3; round++) for (const copy of copies) await copy.decide(sampleRequest("flop"));
      let checked = 0;
      for (const copy of copies) {
        const lines = copy.logs();
        // Its first call (3 lines), 2 of its second's, then one limit line; nothing after.
        expect(lines.filter((l) => l.source === "bot").map((l) => l.text)).toEqual(["call 1 line 0", "call 1 line 1", "call 1 line 2", "call 2 line 0", "call 2 line 1"]);
        expect(lines.filter((l) => l.source === "host").map((l) => l.text)).toEqual(["log limit reached (5 lines or 64 KiB per match): later lines are dropped"]);
        checked++;
      }
      expect(checked).toBe(2);
      for (const copy of copies) await copy.close();
    } finally {
      await limited.close();
    }
  });
});
