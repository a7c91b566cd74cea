/**
 * Issue 33, item 4: uploading code no longer makes a bot hosted for good. Its remote socket is told
 * at once that the code plays, not it (the welcome's `hosted`, or an `error` BOT_HOSTED when code is
 * uploaded while it is open); DELETE /api/bots/:botId/code (`bots unhost`) turns hosting off, and
 * the next match seats the socket; versions stay readable, each match keeps the version it played.
 * The SDK prints the notice and `--once` exits; the CLI's `bots unhost` and the join warning.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "drizzle-orm";
import { connect } from "@poker-bots/sdk";
import { main } from "../../src/cli/index";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { fundedDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";
import starterBot from "../../examples/starter-bot";

setDefaultTimeout(120_000);

const ROOT = resolve(import.meta.dir, "../..");
const STARTER = await Bun.file(join(ROOT, "examples/starter-bot.ts")).text();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("hosted_unhost", { LADDER_HANDS: "4", LADDER_PAIR_EVERY_MS: "50", LADDER_BUY_IN: "200" });
});
afterAll(() => server.close());

const upload = (token: string, botId: string) =>
  fetch(`${server.url}/api/bots/${botId}/code`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "text/typescript" }, body: STARTER }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const codeVersionsPlayed = (botId: string) =>
  queryRows<{ match_id: string; code_version: number | null }>(server.database.db, sql`select mp.match_id, mp.code_version from match_players mp join matches m on m.id = mp.match_id where mp.bot_id = ${botId} and m.status = 'completed' order by m.ended_at`);

describe("a hosted bot switched back to remote", () => {
  test("its socket hears it is hosted; its code plays the ladder; unhosted, the socket plays the next match; code uploaded again while it is open tells it at once", async () => {
    const dev = await fundedDeveloper(server.api, { label: "switcher" });
    const bot = await createBot(server, dev.token, "switcher");
    expect((await upload(dev.token, bot.botId)).status).toBe(201);

    const socket = await new WsBot(server.url, bot.apiKey).connect();
    const welcome = socket.ofType("welcome")[0];
    expect(welcome.hosted).toEqual({ codeVersion: 1, message: expect.stringContaining(`bun run cli -- bots unhost ${bot.botId}`) });
    expect(welcome.hosted.message).toContain(`DELETE /api/bots/${bot.botId}/code`);

    // Hosted: its code plays the ladder; the socket is never seated.
    expect((await server.api("POST", "/api/ladder/entries", { token: dev.token, body: { botId: bot.botId } })).body).toMatchObject({ status: "active" });
    await until(async () => (await codeVersionsPlayed(bot.botId)).length >= 1, 30_000, "a hosted ladder match");
    expect(socket.ofType("match_started")).toEqual([]);
    expect((await codeVersionsPlayed(bot.botId))[0].code_version).toBe(1);

    // Hosting off: 200, again the same; the versions stay readable, none current.
    const off = await server.api("DELETE", `/api/bots/${bot.botId}/code`, { token: dev.token });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ botId: bot.botId, hosted: false, unhostedAt: expect.any(String), versions: 1 });
    expect((await server.api("DELETE", `/api/bots/${bot.botId}/code`, { token: dev.token })).body).toEqual(off.body);
    expect((await server.api("GET", `/api/bots/${bot.botId}`)).body.hosted).toBe(false);
    expect((await server.api("GET", `/api/bots/${bot.botId}`, { token: dev.token })).body).toMatchObject({ hosted: false, codeVersion: null });
    expect((await server.api("GET", `/api/bots/${bot.botId}/code`, { token: dev.token })).body).toEqual([expect.objectContaining({ version: 1, current: false })]);
    expect((await fetch(`${server.url}/api/bots/${bot.botId}/code/1`, { headers: { authorization: `Bearer ${dev.token}` } })).status).toBe(200);

    // The socket plays its next match: seated, asked, answering, to the end.
    const started = await socket.next((m) => m.type === "match_started", 30_000);
    await socket.next((m) => m.type === "action_request" && m.matchId === started.matchId, 30_000);
    await socket.next((m) => m.type === "match_ended" && m.matchId === started.matchId, 30_000);
    const played = await codeVersionsPlayed(bot.botId);
    expect(played.find((p) => p.match_id === started.matchId)?.code_version).toBeNull();
    // Every match keeps the version it played.
    expect(played.filter((p) => p.code_version === 1).length).toBeGreaterThanOrEqual(1);

    // Code uploaded again while the socket is open: told at once (BOT_HOSTED), hosted from its next match.
    const since = socket.messages.length;
    expect((await upload(dev.token, bot.botId)).body.version).toBe(2);
    const told = await socket.next((m) => m.type === "error" && m.code === "BOT_HOSTED", 10_000, since);
    expect(told.message).toContain("version 2");
    expect((await server.api("GET", `/api/bots/${bot.botId}/code`, { token: dev.token })).body.map((v: { version: number; current: boolean }) => [v.version, v.current])).toEqual([
      [2, true],
      [1, false],
    ]);

    expect((await server.api("DELETE", `/api/ladder/entries/${bot.botId}`, { token: dev.token })).status).toBe(200);
    socket.disconnect();
    await until(async () => !(await server.app.services.ladder.withFacts({ botId: bot.botId, includeLeft: true })).some((e) => e.facts.seated), 30_000, "its last match to end");
    expect((await auditLedger(server.database.db)).problems).toEqual([]);
  });

  test("refusals change nothing: a built-in (409 BUILT_IN_BOT), a bot never uploaded (409 BOT_NOT_HOSTED), another's bot (403), no token (401)", async () => {
    const dev = await fundedDeveloper(server.api, { label: "refusals" });
    const stranger = await fundedDeveloper(server.api, { label: "stranger" });
    const builtIn = await createBot(server, dev.token, "plain-caller", "caller");
    const remote = await createBot(server, dev.token, "never-uploaded");
    const hosted = await createBot(server, dev.token, "uploaded");
    expect((await upload(dev.token, hosted.botId)).status).toBe(201);
    const cases: Array<[string, string | undefined, number, string]> = [
      [builtIn.botId, dev.token, 409, "BUILT_IN_BOT"],
      [remote.botId, dev.token, 409, "BOT_NOT_HOSTED"],
      [hosted.botId, stranger.token, 403, "FORBIDDEN"],
      [hosted.botId, undefined, 401, "UNAUTHORIZED"],
    ];
    for (const [botId, token, status, code] of cases) {
      const answer = await server.api("DELETE", `/api/bots/${botId}/code`, { token });
      expect([answer.status, answer.body.error.code]).toEqual([status, code]);
    }
    expect(cases.length).toBe(4);
    expect((await server.api("GET", `/api/bots/${hosted.botId}`)).body.hosted).toBe(true);
  });

  test("the SDK prints that the bot is hosted, and under `once` stops with the reason instead of waiting forever", async () => {
    const dev = await fundedDeveloper(server.api, { label: "sdk-hosted" });
    const bot = await createBot(server, dev.token, "sdk-hosted");
    expect((await upload(dev.token, bot.botId)).status).toBe(201);
    const entries: Array<Record<string, unknown>> = [];
    const client = connect(starterBot, { apiKey: bot.apiKey, server: server.url, once: true, logger: (entry) => void entries.push(entry) });
    const failure = await client.done.then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toContain("sdk-hosted is hosted");
    expect(failure?.message).toContain("bun run cli -- bots unhost sdk-hosted");
    expect(entries.find((e) => e.event === "hosted")).toMatchObject({ level: "warn", codeVersion: 1, message: expect.stringContaining("turn hosting off") });
  });
});

describe("the CLI: bots unhost, and the join warning", () => {
  const dir = mkdtempSync(join(tmpdir(), "cli-unhost-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  async function run(argv: string[]) {
    let stdout = "";
    let stderr = "";
    const code = await main(argv, { env: { POKER_SERVER: server.url, POKER_CONFIG: join(dir, "config.json") }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: ROOT, isTTY: false });
    return { code, stdout, stderr };
  }

  test("joining a remote bot that is not connected: seated as asked, and warned; a connected or built-in bot: no warning; bots unhost switches a hosted bot back", async () => {
    expect((await run(["register", "--email", "unhost@example.com", "--password", "a long password"])).code).toBe(0);
    expect((await run(["faucet"])).code).toBe(0);
    expect((await run(["bots", "create", "lonely"])).code).toBe(0);
    expect((await run(["bots", "create", "sparring", "--strategy", "caller"])).code).toBe(0);
    expect((await run(["tables", "create", "--max-players", "3", "--max-hands", "2"])).code).toBe(0);
    const joined = await run(["tables", "join", "last", "--bot", "lonely"]);
    expect(joined.code).toBe(0);
    expect(joined.stdout).toContain("seated lonely at");
    expect(joined.stderr).toContain("warning: lonely is not connected: it will time out on every turn until it connects (run it: bun examples/starter-bot.ts --bot lonely)");
    const sparring = await run(["tables", "join", "last", "--bot", "sparring"]);
    expect([sparring.code, sparring.stderr]).toEqual([0, ""]);

    // The API's answer: the warning in the body; none for a connected bot.
    const config = JSON.parse(await Bun.file(join(dir, "config.json")).text());
    const profile = Object.values(config.servers ?? config)[0] as { token: string; bots: Record<string, { botId: string; apiKey: string }> };
    const token = profile.token;
    const table = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId;
    const other = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId;
    const awake = await createBot(server, token, "awake");
    const socket = await new WsBot(server.url, awake.apiKey).connect();
    const connectedJoin = await server.api("POST", `/api/tables/${table}/join`, { token, body: { botId: awake.botId } });
    expect(connectedJoin.status).toBe(201);
    expect(connectedJoin.body.warning).toBeUndefined();
    const asleep = await createBot(server, token, "asleep");
    const sleepyJoin = await server.api("POST", `/api/tables/${other}/join`, { token, body: { botId: asleep.botId } });
    expect(sleepyJoin.status).toBe(201);
    expect(sleepyJoin.body).toMatchObject({ botId: asleep.botId, chips: 1000, warning: { code: "BOT_NOT_CONNECTED", message: expect.stringContaining("asleep is not connected") } });
    socket.disconnect();
    for (const [id, botId] of [[table, awake.botId], [other, asleep.botId]]) expect((await server.api("POST", `/api/tables/${id}/leave`, { token, body: { botId } })).status).toBe(200);

    // bots upload, then bots unhost.
    const uploaded = await run(["bots", "upload", "lonely", "examples/starter-bot.ts"]);
    expect(uploaded.stdout).toContain("to play it through its socket again: bun run cli -- bots unhost lonely");
    const unhosted = await run(["bots", "unhost", "lonely"]);
    expect([unhosted.code, unhosted.stderr]).toEqual([0, ""]);
    expect(unhosted.stdout).toMatch(/^lonely \(bot_\w+\) is no longer hosted: its next match seats it as a remote bot\. Run it: bun examples\/starter-bot\.ts --bot lonely\n/);
    expect(unhosted.stdout).toContain("its 1 uploaded version(s) stay");
    expect((await run(["bots", "list"])).stdout).toMatch(/lonely {2}remote/);
    const again = await run(["bots", "unhost", "sparring"]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("(BUILT_IN_BOT)")]);
  });
});
