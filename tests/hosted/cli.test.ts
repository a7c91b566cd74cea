/** The CLI's hosted-bot commands: bots upload / bots logs against a real server, and play/eval with hosted:<file> in the local sandbox. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostedLogs } from "../../src/db/schema";
import { main } from "../../src/cli/index";
import { configureLocalSandbox } from "../../src/cli/hosted";
import { startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(120_000);

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "cli-hosted-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { env: { POKER_CONFIG: join(dir, "config.json"), ...env }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: ROOT, isTTY: false });
  return { code, stdout, stderr };
}

describe("bots upload and bots logs against a server", () => {
  let server: TestServer;
  const run = (argv: string[]) => cli(argv, { POKER_SERVER: server.url });

  beforeAll(async () => {
    server = await startTestServer("cli_hosted");
    expect((await run(["register", "--email", "hosted@example.com", "--password", "a long password"])).code).toBe(0);
    expect((await run(["bots", "create", "boxed"])).code).toBe(0);
  });
  afterAll(() => server?.close());

  test("upload prints the version and sha256; a second upload is version 2; bots list says hosted", async () => {
    const first = await run(["bots", "upload", "boxed", "examples/starter-bot.ts"]);
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect(first.stdout).toMatch(/as version 1 of boxed \(bot_\w+\) · \d+ bytes · sha256 [0-9a-f]{64}/);
    const js = join(dir, "checker.js");
    writeFileSync(js, "export default { decide: (state) => (state.legal.has('check') ? { action: 'check' } : { action: 'fold' }) };\n");
    const second = await run(["bots", "upload", "boxed", js]);
    expect(second.stdout).toContain("as version 2 of boxed");
    expect((await run(["bots", "list"])).stdout).toMatch(/boxed {2}hosted \(code version 2\)/);
  });

  test("a file that does not build: exit 1, the errors with their line, nothing stored", async () => {
    const broken = join(dir, "broken.ts");
    writeFileSync(broken, "import { defineBot } from '@poker-bots/sdk';\nexport default defineBot({ decide( {\n");
    const answer = await run(["bots", "upload", "boxed", broken]);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain("(VALIDATION_ERROR): nothing was stored");
    expect(answer.stderr).toContain("stage: build");
    expect(answer.stderr).toMatch(/line 2(:\d+)?: /);
    expect((await run(["bots", "list"])).stdout).toContain("hosted (code version 2)");
  });

  test("logs: the newest match, or --match; failures marked", async () => {
    expect((await run(["bots", "logs", "boxed"])).stdout).toContain("boxed has no log lines yet");
    const botId = (await server.api("GET", "/api/bots?limit=500")).body.find((b: { name: string }) => b.name === "boxed").botId;
    const createdAt = new Date();
    await server.database.db.insert(hostedLogs).values([
      { botId, matchId: "m_first", version: 1, handNumber: 4, kind: "failure", failure: "timeout", level: "warn", message: "decision failed (timeout)", createdAt },
      { botId, matchId: "m_second", version: 2, handNumber: 1, kind: "log", level: "info", message: "thinking hard", createdAt },
    ]);
    const newest = await run(["bots", "logs", "boxed"]);
    expect(newest.stdout).toContain("match m_second · boxed (code version 2) · 1 line(s)");
    expect(newest.stdout).toContain("hand 1  [info] thinking hard");
    const first = await run(["bots", "logs", "boxed", "--match", "m_first"]);
    expect(first.stdout).toContain("hand 4  [FAILED (timeout)] decision failed (timeout)");
  });
});

describe("play and eval with hosted:<file>", () => {
  // The service's limits but the load budget: this machine is shared by other test runs, and the
  // sandbox's clock is the wall's (loading the SDK's tables takes it 0.2 s alone, over 1 s when busy).
  beforeAll(() => configureLocalSandbox({ limits: { loadMs: 15_000 } }));
  afterAll(() => configureLocalSandbox({}));

  test("play hosted:./examples/starter-bot.ts against a built-in: the same match as the file in process, its log printed", async () => {
    const hosted = await cli(["play", "--players", "hosted:./examples/starter-bot.ts,caller", "--hands", "12", "--seed", "7", "--json", "--out", join(dir, "hosted.phhs")]);
    expect([hosted.code, hosted.stderr]).toEqual([0, ""]);
    const inProcess = await cli(["play", "--players", "./examples/starter-bot.ts,caller", "--hands", "12", "--seed", "7", "--json", "--out", join(dir, "local.phhs")]);
    const a = JSON.parse(hosted.stdout);
    const b = JSON.parse(inProcess.stdout);
    expect(a.handsPlayed).toBeGreaterThan(0);
    expect(a.players.map((p: { name: string; profit: number }) => [p.name, p.profit])).toEqual(b.players.map((p: { name: string; profit: number }) => [p.name, p.profit]));
    expect(a.players[0].hostedLogs).toEqual([]);
    const lines = await cli(["play", "--players", "hosted:./examples/starter-bot.ts,caller", "--hands", "3", "--seed", "7", "--out", join(dir, "lines.phhs")]);
    expect(lines.stdout).toContain("starter-bot (hosted, sandboxed): no failed decisions, 0 log line(s)");
  });

  test("a hosted bot that fails: the fallback keeps the match going and its failures are printed", async () => {
    const thrower = join(dir, "thrower.ts");
    writeFileSync(thrower, "let hands = 0;\nexport default { onHandStarted() { hands++; }, decide() { if (hands >= 2) throw new Error('broken on purpose'); return { action: 'call' }; } };\n");
    const answer = await cli(["play", "--players", `hosted:${thrower},caller`, "--hands", "6", "--seed", "11", "--out", join(dir, "thrower.phhs")]);
    expect(answer.code).toBe(0);
    expect(answer.stdout).toMatch(/thrower \(hosted, sandboxed\): [1-9]\d* failure line\(s\)/);
    expect(answer.stdout).toContain("decision failed (exception)");
    expect(answer.stdout).toContain("broken on purpose");
    expect(answer.stdout).toMatch(/local match · seed 11 · 2 players · 6 hands/);
  });

  test("a hosted file that does not build fails before the match, with its line; hosted: with exec: is refused", async () => {
    const broken = join(dir, "broken-local.ts");
    writeFileSync(broken, "export default {\n  decide( {\n");
    const answer = await cli(["play", "--players", `hosted:${broken},caller`, "--hands", "2"]);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain("does not build for the sandbox");
    expect(answer.stderr).toMatch(/line \d+/);
    const mixed = await cli(["play", "--players", "hosted:./examples/starter-bot.ts,exec:python3 x.py", "--hands", "2"]);
    expect([mixed.code, mixed.stderr]).toEqual([1, expect.stringContaining("hosted: players play in local matches")]);
  });

  test("eval hosted:<file> agrees with the file in process (same seeds, same verdict figures)", async () => {
    const args = ["--matches", "2", "--hands", "10", "--seed", "5", "--parallel", "1", "--json"];
    const hosted = await cli(["eval", "--players", "hosted:./examples/starter-bot.ts,tight", ...args]);
    expect([hosted.code, hosted.stderr]).toEqual([0, ""]);
    const inProcess = await cli(["eval", "--players", "./examples/starter-bot.ts,tight", ...args]);
    const pick = (text: string) => JSON.parse(text).pairings.map((p: { hands: number; bbPer100: number }) => [p.hands, p.bbPer100]);
    expect(pick(hosted.stdout)).toEqual(pick(inProcess.stdout));
  });
});
