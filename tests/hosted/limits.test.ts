/**
 * Issue 32's limits on uploads and seats, through the routes: the bundled script's size (the
 * const-enum file), the per-developer upload rate (429 with Retry-After), the versions a bot keeps
 * (a played version stays readable), and the per-developer cap on hosted seats (409 at a join).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { mayOpenHostedSeat } from "../../src/modules/hosted/code-store";
import { MAX_BUNDLED_BYTES } from "../../src/modules/hosted/upload";
import { useHarness } from "../support/app";

setDefaultTimeout(120_000);

const UPLOADS_PER_MINUTE = 6;
const VERSIONS_PER_BOT = 3;
const HOSTED_SEATS = 2;
const h = useHarness("hosted_limits", {
  HOSTED_UPLOADS_PER_MINUTE: String(UPLOADS_PER_MINUTE),
  HOSTED_VERSIONS_PER_BOT: String(VERSIONS_PER_BOT),
  MAX_HOSTED_SEATS_PER_DEVELOPER: String(HOSTED_SEATS),
});

const JS = { "content-type": "application/javascript" };
const JS_BOT = "export default { decide(state) { return state.legal.has('check') ? { action: 'check' } : { action: 'call' }; } };\n";
/** The same bot, told apart (a version is a file: each upload a distinct one). */
const jsBot = (n: number) => `${JS_BOT}// ${n}\n`;

const upload = (token: string, botId: string, source: string, headers: Record<string, string> = JS) => h.call("PUT", `/api/bots/${botId}/code`, { token, rawBody: source, headers });

async function newBot(token: string, name: string, strategy?: string): Promise<string> {
  const created = await h.call("POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } });
  expect(created.status).toBe(201);
  return created.body.botId;
}

async function storedVersions(botId: string): Promise<number[]> {
  const rows = await queryRows<{ version: number }>(h.database.db, sql`select version from bot_code_versions where bot_id = ${botId} order by version`);
  return rows.map((r) => r.version);
}

/** Plays one short match of `botId` (hosted) against a built-in, to its end: its current version is then one a match played. */
async function playOneMatch(token: string, botId: string, opponent: string): Promise<string> {
  const table = await h.call("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 2, buyIn: 100 } });
  expect(table.status).toBe(201);
  for (const bot of [botId, opponent]) expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: bot } })).status).toBe(201);
  await h.app.services.host.settled();
  const finished = (await h.call("GET", `/api/tables/${table.body.tableId}`)).body;
  expect(finished.status).toBe("finished");
  return finished.matchId;
}

describe("the bundled script's size", () => {
  test("a const enum of 1,000 characters used 20,000 times (an 81 KB file, a 20 MB script) is refused 413 at the build stage, with the size and the limit; nothing stored", async () => {
    const dev = await h.registerDeveloper();
    const botId = await newBot(dev.token, "amplifier");
    const uses = Array.from({ length: 20_000 }, () => "E.A").join(",");
    const file = `import { check, defineBot } from "@poker-bots/sdk";\nconst enum E { A = "${"x".repeat(1_000)}" }\nexport const all = [${uses}];\nexport default defineBot({ decide() { return check(); } });\n`;
    expect(Buffer.byteLength(file)).toBeGreaterThan(80_000);
    expect(Buffer.byteLength(file)).toBeLessThan(82_000);
    const refused = await upload(dev.token, botId, file, { "content-type": "text/typescript" });
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { stage: "build", maxBundledBytes: MAX_BUNDLED_BYTES } });
    // Refused after the transpile, before the build and the sandbox: at least the 20 MB of inlined copies.
    expect(refused.body.error.details.bundledBytes).toBeGreaterThan(20_000_000);
    expect(refused.body.error.message).toContain(`over the ${MAX_BUNDLED_BYTES.toLocaleString("en-US")}-byte limit`);
    expect(await storedVersions(botId)).toEqual([]);
  });
});

describe("uploads per developer", () => {
  test("24 concurrent uploads by one developer: 6 stored, 18 answered 429 RATE_LIMITED with Retry-After; the bot keeps 3 versions, the newest", async () => {
    const dev = await h.registerDeveloper();
    const botId = await newBot(dev.token, "hasty");
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => upload(dev.token, botId, jsBot(i))));
    const created = answers.filter((a) => a.status === 201);
    const limited = answers.filter((a) => a.status === 429);
    expect([created.length, limited.length]).toEqual([UPLOADS_PER_MINUTE, 24 - UPLOADS_PER_MINUTE]);
    for (const answer of limited) {
      const seconds = Number(answer.headers.get("retry-after"));
      expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60).toBe(true);
      expect(answer.body).toEqual({
        error: { code: "RATE_LIMITED", message: expect.stringContaining(`at most ${UPLOADS_PER_MINUTE} every 60 s per developer`), details: { retryAfterSeconds: seconds, quota: UPLOADS_PER_MINUTE, windowSeconds: 60 } },
      });
    }
    // Numbered 1…6 as they were stored; the three oldest (no match played them) made room.
    expect(created.map((a) => a.body.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await storedVersions(botId)).toEqual([4, 5, 6]);
    // Another developer's budget is their own.
    const other = await h.registerDeveloper();
    expect((await upload(other.token, await newBot(other.token, "calm"), JS_BOT)).status).toBe(201);
  });
});

describe("versions per bot", () => {
  test("past the cap the oldest unplayed version goes; a version a match played stays readable; when played ones fill the cap, 409 TOO_MANY_VERSIONS and nothing changes", async () => {
    const dev = await h.fundedDeveloper();
    const botId = await newBot(dev.token, "iterating");
    const opponent = await newBot(dev.token, "sparring", "caller");
    expect((await upload(dev.token, botId, jsBot(1))).status).toBe(201);
    const firstMatch = await playOneMatch(dev.token, botId, opponent);
    for (const n of [2, 3]) expect((await upload(dev.token, botId, jsBot(n))).status).toBe(201);
    // Version 4: the oldest unplayed (2) goes, the played 1 stays.
    expect((await upload(dev.token, botId, jsBot(4))).body.version).toBe(4);
    expect(await storedVersions(botId)).toEqual([1, 3, 4]);
    expect((await h.call("GET", `/api/bots/${botId}/code/1`, { token: dev.token })).body).toBe(jsBot(1));
    expect((await h.call("GET", `/api/bots/${botId}/code/2`, { token: dev.token })).status).toBe(404);
    const record = (await h.call("GET", `/api/matches/${firstMatch}`)).body;
    expect(record.players.find((p: { botId: string }) => p.botId === botId)).toBeDefined();

    await playOneMatch(dev.token, botId, opponent); // plays 4
    expect((await upload(dev.token, botId, jsBot(5))).body.version).toBe(5); // 3 goes
    expect(await storedVersions(botId)).toEqual([1, 4, 5]);
    await playOneMatch(dev.token, botId, opponent); // plays 5: all three kept versions are played
    const full = await upload(dev.token, botId, jsBot(6));
    expect([full.status, full.body.error.code, full.body.error.details]).toEqual([409, "TOO_MANY_VERSIONS", { versions: 3, maxVersions: VERSIONS_PER_BOT }]);
    expect(await storedVersions(botId)).toEqual([1, 4, 5]);
    await h.expectAuditClean();
  });
});

describe("hosted seats per developer", () => {
  test("a developer's hosted bots hold at most 2 seats: the third join is 409 TOO_MANY_HOSTED_SEATS (a remote bot still joins); one leaves, the next joins", async () => {
    const dev = await h.fundedDeveloper();
    const hosted = [];
    for (const name of ["h1", "h2", "h3"]) {
      const botId = await newBot(dev.token, `seats-${name}`);
      expect((await upload(dev.token, botId, JS_BOT)).status).toBe(201);
      hosted.push(botId);
    }
    const remote = await newBot(dev.token, "seats-remote");
    const tables: string[] = [];
    for (let i = 0; i < 4; i++) tables.push((await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 100 } })).body.tableId);
    const join = (tableId: string, botId: string) => h.call("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId } });

    expect((await join(tables[0], hosted[0])).status).toBe(201);
    expect((await join(tables[1], hosted[1])).status).toBe(201);
    const third = await join(tables[2], hosted[2]);
    expect([third.status, third.body.error.code, third.body.error.details]).toEqual([409, "TOO_MANY_HOSTED_SEATS", { held: HOSTED_SEATS, limit: HOSTED_SEATS }]);
    expect(await mayOpenHostedSeat(h.database.db, dev.developerId, hosted[2], HOSTED_SEATS)).toEqual({ allowed: false, held: 2, limit: 2 });
    expect((await mayOpenHostedSeat(h.database.db, dev.developerId, remote, HOSTED_SEATS)).allowed).toBe(true);
    expect((await join(tables[3], remote)).status).toBe(201);

    expect((await h.call("POST", `/api/tables/${tables[0]}/leave`, { token: dev.token, body: { botId: hosted[0] } })).status).toBe(200);
    expect((await join(tables[2], hosted[2])).status).toBe(201);
    for (const tableId of tables) expect((await h.call("DELETE", `/api/tables/${tableId}`, { token: dev.token })).status).toBe(200);
    await h.expectAuditClean();
  });
});
