import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../src/db";
import { matches, seats, tables } from "../../src/db/schema";
import { auditLedger } from "../../src/modules/credits/audit";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { callApi } from "../support/http";
import { spawnMain } from "../support/process";
import { WsBot } from "../support/ws-bot";

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
  test("SIGKILL mid-match: after a restart every chip is back, the audit is clean, the aborted match is not listed", async () => {
    const first = await boot();
    const registered = await first.api("POST", "/api/auth/register", { body: { email: "crash@example.com", password: "a long password" } });
    const token = registered.body.token;
    expect((await first.api("POST", "/api/me/balance/faucet", { token })).status).toBe(200);
    const bot = async (name: string, strategy?: string) =>
      (await first.api("POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } })).body;

    // A long match of built-ins, a match with a slow remote bot, and a waiting table with one seat taken.
    const builtIn = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 3, maxHands: 100_000 } })).body.tableId;
    for (const name of ["c1", "c2", "c3"]) await first.api("POST", `/api/tables/${builtIn}/join`, { token, body: { botId: (await bot(name, "caller")).botId } });
    const remote = await bot("remote");
    const ws = await new WsBot(first.url, remote.apiKey, (request, self) => {
      setTimeout(() => self.send({ type: "action", requestId: request.requestId, action: request.legalActions.includes("check") ? "check" : "call" }), 10);
      return null;
    }).connect();
    const withRemote = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 100_000 } })).body.tableId;
    await first.api("POST", `/api/tables/${withRemote}/join`, { token, body: { botId: remote.botId } });
    await first.api("POST", `/api/tables/${withRemote}/join`, { token, body: { botId: (await bot("house", "tight")).botId } });
    const waiting = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId;
    const waitingBot = await bot("patient", "caller");
    await first.api("POST", `/api/tables/${waiting}/join`, { token, body: { botId: waitingBot.botId } });

    await ws.next((m) => m.type === "hand_ended" && m.handNumber >= 3);
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
      const report = await auditLedger(database.db);
      expect(report.problems).toEqual([]);
      expect(report.faucetGrants).toBe(10_000);
      // Only the waiting table's seat is still open; both interrupted matches were cashed out.
      expect(report.openSeatChips).toBe(1_000);
      expect((await second.api("GET", "/api/me/balance", { token })).body.balance).toBe(9_000);
      for (const tableId of [builtIn, withRemote]) {
        const [row] = await database.db.select().from(tables).where(eq(tables.id, tableId));
        expect(row.status).toBe("aborted");
        const [match] = await database.db.select().from(matches).where(eq(matches.id, row.matchId!));
        expect(match.status).toBe("aborted");
        expect((await second.api("GET", `/api/matches/${row.matchId}`)).status).toBe(404);
        const open = await database.db.select().from(seats).where(eq(seats.tableId, tableId));
        expect(open.every((s) => s.status === "closed")).toBe(true);
      }
      expect((await second.api("GET", "/api/matches")).body).toEqual([]);
      const statsRows: any = await database.db.execute(sql`select count(*)::int as n from bot_stats`);
      expect((Array.isArray(statsRows) ? statsRows : statsRows.rows)[0].n).toBe(0);
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
    expect(final.openSeatChips).toBe(0);
  });
});
