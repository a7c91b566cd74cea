import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, queryRows, type Database } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { callApi } from "../support/http";
import { until } from "../support/nodes";
import { spawnMain } from "../support/process";
import { STARTER_BOT, storeVersion } from "./play-support";
import { bundleFile, bundleFixture } from "./support";

setDefaultTimeout(90_000);

let testDb: TestDatabase;
let database: Database;
beforeAll(async () => {
  testDb = await createTestDatabase("hosted_resume");
  database = await openDatabase({ databaseUrl: testDb.url, maxConnections: 2 });
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

async function boot() {
  const server = await spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, HOST_ID: "hosted-resume" });
  return { ...server, api: (method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(server.url, method, path, options) };
}

const logsAfter = (botId: string, afterId: number) =>
  queryRows<{ id: number; version: number; hand_number: number | null; message: string }>(
    database.db,
    sql`select id, version, hand_number, message from hosted_logs where bot_id = ${botId} and kind = 'log' and id > ${afterId} order by id`,
  );

describe("a hosted seat after a crash", () => {
  test("SIGKILL mid-match: the resumed match reopens the version it pinned (not a newer upload) in a fresh context, and records it", async () => {
    const first = await boot();
    const { token } = (await first.api("POST", "/api/auth/register", { body: { email: "hosted-resume@example.com", password: "a long password" } })).body;
    expect((await first.api("POST", "/api/me/balance/faucet", { token })).status).toBe(200);
    const hosted = (await first.api("POST", "/api/bots", { token, body: { name: "counter" } })).body.botId;
    await storeVersion(database.db, hosted, 1, await bundleFixture("hook-counter"));
    const caller = (await first.api("POST", "/api/bots", { token, body: { name: "caller", strategy: "caller" } })).body.botId;
    // Two check-or-callers with blinds of 1: nobody busts before the kill.
    const tableId = (await first.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body.tableId;
    for (const botId of [hosted, caller]) expect((await first.api("POST", `/api/tables/${tableId}/join`, { token, body: { botId } })).status).toBe(201);
    // Its lines are written hand by hand: wait for a few hands of them, then kill the node.
    await until(async () => (await logsAfter(hosted, 0)).length >= 5 || null, 30_000, "five hands of the hosted bot's logs");
    first.child.kill("SIGKILL");
    await first.child.exited;
    const [{ last }] = await queryRows<{ last: number }>(database.db, sql`select coalesce(max(id), 0)::int as last from hosted_logs where bot_id = ${hosted}`);
    const beforeCrash = await logsAfter(hosted, 0);
    expect(beforeCrash.every((row) => row.message.startsWith(`hands=${row.hand_number} `))).toBe(true);
    // A new upload while the node is down applies from the next match only.
    await storeVersion(database.db, hosted, 2, await bundleFile(STARTER_BOT));

    const second = await boot();
    try {
      const resumed = await until(async () => {
        const rows = await logsAfter(hosted, last);
        return rows.length >= 3 ? rows : null;
      }, 30_000, "the resumed bot's logs").catch((error) => {
        console.log(second.stdout().slice(-4000), second.stderr().slice(-4000));
        throw error;
      });
      // The pinned version 1 runs again (version 2 logs no hand counts), in a fresh context: its counter restarted.
      for (const row of resumed) expect(row.version).toBe(1);
      expect(resumed[0].message).toStartWith("hands=1 ");
      expect(resumed[0].hand_number!).toBeGreaterThan(beforeCrash.at(-1)!.hand_number!);
      const [seat] = await queryRows<{ code_version: number }>(database.db, sql`select code_version from seats where table_id = ${tableId} and bot_id = ${hosted}`);
      expect(seat.code_version).toBe(1);

      expect((await second.api("POST", `/api/tables/${tableId}/leave`, { token, body: { botId: caller } })).status).toBe(200);
      const matchId = await until(async () => {
        const view = (await second.api("GET", `/api/tables/${tableId}`)).body;
        return view.status === "finished" ? (view.matchId as string) : null;
      }, 30_000, "the match's end");
      const [player] = await queryRows<{ code_version: number }>(database.db, sql`select code_version from match_players where match_id = ${matchId} and bot_id = ${hosted}`);
      expect(player.code_version).toBe(1);
    } finally {
      second.child.kill("SIGTERM");
      expect(await second.child.exited).toBe(0);
    }
    expect((await auditLedger(database.db)).problems).toEqual([]);
  });
});
