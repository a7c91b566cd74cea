import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import postgres from "postgres";
import { auditLedger } from "../../src/modules/credits/audit";
import { openDatabase, type Database } from "../../src/db";
import { deckReused, firstMismatch } from "../../src/cli/commands/verify";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { allPages, callApi } from "../support/http";
import { spawnMain, type ChildServer } from "../support/process";
import { WsBot, type Message } from "../support/ws-bot";
import { redealt, unsaid, witness } from "../support/card-witness";

// The server is killed (SIGKILL) four times mid-match and restarted: each restart waits out the lease (6 s).
setDefaultTimeout(180_000);

let testDb: TestDatabase;
let database: Database;
beforeAll(async () => {
  testDb = await createTestDatabase("no_redeal");
  database = await openDatabase({ databaseUrl: testDb.url, maxConnections: 2 });
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

const boot = () => spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, HOST_ID: "redeal-test" });
const api = (server: ChildServer, method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(server.url, method, path, options);
const checkOrCall = (request: Message) => ({ action: request.legalActions.includes("check") ? "check" : "call" });

/** Where the kill lands: as a bot hears of a deal, of a request to act, of a hand's end; and at a random moment. */
const CRASH_POINT_KINDS = ["hand_started", "action_request", "hand_ended", "any moment"] as const;
/** `bun run test:soak` goes round them several times (REDEAL_ROUNDS). */
const CRASH_POINTS = Array.from({ length: Number(process.env.REDEAL_ROUNDS ?? 1) }, () => CRASH_POINT_KINDS).flat();

async function recordedNumbers(matchId: string): Promise<Set<number>> {
  const db = postgres(testDb.url, { max: 1, onnotice: () => {} });
  try {
    return new Set((await db`select number from hands where match_id = ${matchId}`).map((r) => Number(r.number)));
  } finally {
    await db.end();
  }
}

describe("a crash never re-deals a deck the players have seen", () => {
  test("SIGKILL right after a deal, mid-hand, right after a hand's end and at a random moment: no hand number is dealt twice, every hand a bot saw is recorded or announced void, the fairness record accounts for every number", async () => {
    let server = await boot();
    const owner = (await api(server, "POST", "/api/auth/register", { body: { email: "redeal@example.com", password: "a long password" } })).body.token;
    expect((await api(server, "POST", "/api/me/balance/faucet", { token: owner })).status).toBe(200);
    const botA = (await api(server, "POST", "/api/bots", { token: owner, body: { name: "witness-a" } })).body;
    const botB = (await api(server, "POST", "/api/bots", { token: owner, body: { name: "witness-b" } })).body;
    // Two checking/calling bots at blinds of 1: stacks drift a chip a hand, nobody busts while the test runs.
    const tableId = (await api(server, "POST", "/api/tables", { token: owner, body: { maxPlayers: 2, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body.tableId;
    const a = await new WsBot(server.url, botA.apiKey, checkOrCall).connect();
    const b = await new WsBot(server.url, botB.apiKey, checkOrCall).connect();
    for (const bot of [botA, botB]) expect((await api(server, "POST", `/api/tables/${tableId}/join`, { token: owner, body: { botId: bot.botId } })).status).toBe(201);
    const matchId = (await a.next((m) => m.type === "match_started")).matchId as string;

    const kills: Array<(typeof CRASH_POINT_KINDS)[number]> = [];
    for (const point of CRASH_POINTS) {
      // A few hands on this run of the server first, then the kill at the crash point.
      // (The first hand_ended may end a hand the bot joined by a snapshot: two whole hands follow it.)
      for (let ended = 0; ended < 3; ended++) await a.next((m) => m.type === "hand_ended", 30_000, a.messages.length);
      if (point === "any moment") await Bun.sleep(Math.floor(Math.random() * 50));
      else await a.next((m) => m.type === point, 30_000, a.messages.length);
      process.kill(server.child.pid, "SIGKILL");
      await server.child.exited;
      kills.push(point);
      // Restarted: both bots reconnect and are told the match goes on without the void hands.
      server = await boot();
      for (const bot of [a, b]) {
        const since = bot.messages.length;
        await bot.connect(server.url);
        const snapshot = await bot.next((m) => m.type === "snapshot", 30_000, since);
        expect(snapshot).toMatchObject({ matchId, status: "running" });
      }
    }
    expect(kills).toEqual(CRASH_POINTS);

    // Both leave: the match ends, recorded with its matchId.
    for (const bot of [botA, botB]) expect((await api(server, "POST", `/api/tables/${tableId}/leave`, { token: owner, body: { botId: bot.botId } })).status).toBe(200);
    await a.next((m) => m.type === "match_ended", 30_000);
    const history = await allPages(server.url, `/api/matches/${matchId}/hands?limit=1000`, "hands", { token: owner });
    const fairness = (await api(server, "GET", `/api/matches/${matchId}/fairness`)).body;
    const recorded = await recordedNumbers(matchId);
    expect(history.length).toBe(recorded.size);
    expect(fairness.handsPlayed).toBe(recorded.size);

    const seen = witness([{ name: "a", messages: a.messages }, { name: "b", messages: b.messages }], matchId);
    // The bots were away at each resumption (it came first): each reconnect's snapshot told them what was void.
    expect(seen.announcedVoid.size).toBeGreaterThanOrEqual(CRASH_POINTS.length);
    // Two whole hands at least before each kill.
    expect(seen.dealtTo.get("a")!.length).toBeGreaterThanOrEqual(2 * CRASH_POINTS.length);
    // No hand number (so no deck) dealt twice, to either bot.
    expect(redealt(seen)).toEqual([]);
    // Nothing shown is silently unsaid: every hand a bot was dealt into is recorded, or a match_resumed voided it.
    expect(unsaid(seen, recorded)).toEqual([]);
    // The fairness record voids exactly what was announced, and no voided number was ever recorded.
    expect(new Set(fairness.voidedHands)).toEqual(seen.announcedVoid);
    for (const n of fairness.voidedHands) expect(recorded.has(n)).toBe(false);
    expect(deckReused([...recorded], fairness.voidedHands, false)).toBeNull();
    expect(firstMismatch(fairness, history)).toBeNull();
    // Every number up to the last is accounted for: recorded or voided.
    const last = Math.max(...recorded, ...fairness.voidedHands);
    expect(recorded.size + fairness.voidedHands.length).toBe(last);

    // The histories and the replay page say which hands were voided.
    expect((await api(server, "GET", `/api/matches/${matchId}/hands?limit=1`)).body.voidedHands).toEqual(fairness.voidedHands);
    const replay = await (await fetch(`${server.url}/matches/${matchId}`)).text();
    expect(replay).toContain(`Voided hands: ${fairness.voidedHands[0]}, `);

    a.disconnect();
    b.disconnect();
    process.kill(server.child.pid, "SIGTERM");
    expect(await server.child.exited).toBe(0);
    const report = await auditLedger(database.db);
    expect(report.problems).toEqual([]);
  });
});
