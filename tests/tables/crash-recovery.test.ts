import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../src/db";
import { tables } from "../../src/db/schema";
import { auditLedger } from "../../src/modules/credits/audit";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { allPages, callApi } from "../support/http";
import { until } from "../support/nodes";
import { spawnMain } from "../support/process";
import { WsBot } from "../support/ws-bot";
import { firstMismatch } from "../../src/cli/commands/verify";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

let testDb: TestDatabase;
let database: Database;

beforeAll(async () => {
  testDb = await createTestDatabase("crash_recovery");
  database = await openDatabase({ databaseUrl: testDb.url, maxConnections: 2 });
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

async function boot() {
  const server = await spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, HOST_ID: "crash-test" });
  return { ...server, api: (method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(server.url, method, path, options) };
}

describe("crash recovery", () => {
  test("SIGKILL mid-match: the restart resumes every match from its last recorded hand (same matchId, the hand in flight void), the books balance throughout", async () => {
    const first = await boot();
    const registered = await first.api("POST", "/api/auth/register", { body: { email: "crash@example.com", password: "a long password" } });
    const token = registered.body.token;
    expect((await first.api("POST", "/api/me/balance/faucet", { token })).status).toBe(200);
    const bot = async (name: string, strategy?: string) =>
      (await first.api("POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } })).body;

    // A long match of built-ins, a match with a slow remote bot, and a waiting table with one seat taken.
    // Blinds of 1 for three callers: a stack moves about 1.4 chips a hand, so none of 1,000 busts
    // (ending the match) in the tens of thousands of hands it plays before the kill.
    const builtIn = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 3, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body.tableId;
    for (const name of ["c1", "c2", "c3"]) await first.api("POST", `/api/tables/${builtIn}/join`, { token, body: { botId: (await bot(name, "caller")).botId } });
    const remote = await bot("remote");
    const ws = await new WsBot(first.url, remote.apiKey, (request, self) => {
      setTimeout(() => self.send({ type: "action", requestId: request.requestId, action: request.legalActions.includes("check") ? "check" : "call" }), 10);
      return null;
    }).connect();
    const withRemote = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 100_000 } })).body.tableId;
    await first.api("POST", `/api/tables/${withRemote}/join`, { token, body: { botId: remote.botId } });
    // A caller, never a raiser: with pots of a few blinds nobody can bust (and end the match) before the kill.
    await first.api("POST", `/api/tables/${withRemote}/join`, { token, body: { botId: (await bot("house", "caller")).botId } });
    const waiting = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId;
    const waitingBot = await bot("patient", "caller");
    await first.api("POST", `/api/tables/${waiting}/join`, { token, body: { botId: waitingBot.botId } });

    await ws.next((m) => m.type === "hand_ended" && m.handNumber >= 3);
    // The kill lands at a random moment of play (the test's input, not a wait for anything).
    await Bun.sleep(150 + Math.floor(Math.random() * 200));
    const progress = await first.api("GET", `/api/tables/${builtIn}`);
    expect(progress.body.status).toBe("running");
    first.child.kill("SIGKILL");
    await first.child.exited;

    // Killed: the books still balance (every hand was written atomically with its stacks).
    const whileDown = await auditLedger(database.db);
    expect(whileDown.problems).toEqual([]);
    expect(whileDown.openSeatChips).toBe(6_000);

    const second = await boot();
    try {
      // Restarted: both interrupted matches resume (same matchId) from their last recorded hand.
      const report = await auditLedger(database.db);
      expect(report.problems).toEqual([]);
      expect(report.faucetGrants).toBe(10_000);
      expect(report.openSeatChips).toBe(6_000);
      const before = new Map<string, { matchId: string; hands: number }>();
      for (const tableId of [builtIn, withRemote]) {
        const [row] = await database.db.select().from(tables).where(eq(tables.id, tableId));
        expect(row.status).toBe("running");
        const recorded: any = await database.db.execute(sql`select count(*)::int as n from hands where match_id = ${row.matchId}`);
        before.set(tableId, { matchId: row.matchId!, hands: (Array.isArray(recorded) ? recorded : recorded.rows)[0].n });
      }
      // The remote bot reconnects and is told the match goes on; it keeps playing.
      const again = await new WsBot(second.url, remote.apiKey, (request) => ({ action: request.legalActions.includes("check") ? "check" : "call" })).connect();
      await again.next((m) => m.type === "snapshot" || m.type === "match_resumed");
      await again.next((m) => m.type === "hand_ended" && m.handNumber > before.get(withRemote)!.hands + 2, 30_000);
      // Everyone leaves: the matches end normally, recorded with the same matchIds.
      const seated: Array<[string, string]> = [];
      for (const tableId of [builtIn, withRemote]) for (const seat of (await second.api("GET", `/api/tables/${tableId}`)).body.seats) seated.push([tableId, seat.botId]);
      expect(seated.length).toBeGreaterThanOrEqual(3);
      for (const [tableId, botId] of seated) {
        const left = await second.api("POST", `/api/tables/${tableId}/leave`, { token, body: { botId } });
        // A bot that busted meanwhile (404), or a match that already ended (its last rival left: 409),
        // has nothing left to leave.
        if (left.status !== 200) {
          const now = (await second.api("GET", `/api/tables/${tableId}`)).body;
          expect(now.status === "finished" || !now.seats.some((s: any) => s.botId === botId)).toBe(true);
        }
      }
      for (const tableId of [builtIn, withRemote]) {
        const { matchId, hands } = before.get(tableId)!;
        const view = await until(async () => {
          const answer = (await second.api("GET", `/api/tables/${tableId}`)).body;
          return answer.status === "finished" && answer;
        }, 20_000, `the match at ${tableId} to finish`);
        expect(view.matchId).toBe(matchId);
        const record = (await second.api("GET", `/api/matches/${matchId}`)).body;
        expect(record.handsPlayed).toBeGreaterThan(hands);
        const history = await allPages(second.url, `/api/matches/${matchId}/hands`, "hands", { token });
        expect(history).toHaveLength(record.handsPlayed);
        // The hand in flight at the crash was void: its number is skipped, never dealt again.
        const numbers = history.map((h: any) => h.handNumber);
        expect(numbers[numbers.length - 1]).toBeGreaterThan(numbers.length);
        const fairness = (await second.api("GET", `/api/matches/${matchId}/fairness`)).body;
        expect(firstMismatch(fairness, history)).toBeNull();
      }
      again.disconnect();
      // The waiting table was resumed: listed with its seat, and joinable.
      const lobby = (await second.api("GET", "/api/tables")).body;
      expect(lobby.find((t: any) => t.tableId === waiting)?.seats).toEqual([{ seat: 0, botId: waitingBot.botId, chips: 1000, leaving: false }]);
      const joiner = (await second.api("POST", "/api/bots", { token, body: { name: "late", strategy: "caller" } })).body;
      const joined = await second.api("POST", `/api/tables/${waiting}/join`, { token, body: { botId: joiner.botId } });
      expect(joined.status).toBe(201);
    } finally {
      second.child.kill("SIGTERM");
      expect(await second.child.exited).toBe(0);
    }
    const final = await auditLedger(database.db);
    expect(final.problems).toEqual([]);
  });
});
