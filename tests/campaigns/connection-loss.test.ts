/**
 * Lost database connections (issue 16): the server's backends are terminated several times while
 * matches of built-in bots are being played. The process stays up, every match finishes (none is
 * aborted), every hand is written exactly once, and the ledger audit is clean.
 *
 *   CONNECTION_LOSS_ROUNDS (default 4)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../src/db";
import { retryTransient } from "../../src/db/retry";
import { auditLedger } from "../../src/modules/credits/audit";
import { ADMIN_DATABASE_URL, createTestDatabase, type TestDatabase } from "../support/db";
import { intFromEnv, matchProblems, perDeveloperProblems, pollUntil, rowsOf, runAuditCli, spawnServer, type ServerProcess } from "./support";

const ROUNDS = intFromEnv("CONNECTION_LOSS_ROUNDS", 4);
const TABLES = 6;
const MAX_HANDS = 3_000;

let testDb: TestDatabase;
let database: Database;
let admin: postgres.Sql;
let server: ServerProcess | undefined;

beforeAll(async () => {
  testDb = await createTestDatabase("connection_loss");
  database = await openDatabase({ databaseUrl: testDb.url, maxConnections: 2 });
  admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
  await server?.child.exited;
  await admin.end();
  await database.close();
  await testDb.drop();
});

const databaseName = () => new URL(testDb.url).pathname.slice(1);

/** Terminates every backend of the test database except the admin's own (the server's and ours). */
async function terminateBackends(): Promise<number> {
  const [row] = await admin`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
    where datname = ${databaseName()} and pid <> pg_backend_pid()`;
  return row.n;
}

describe("lost database connections", () => {
  test("a transaction whose backend was terminated fails cleanly; the pool reconnects", async () => {
    // The service's driver, patched (patches/postgres@3.4.9.patch): unpatched, the statement after
    // the loss was written to a null socket from a timer, an uncaught TypeError that ends the process.
    const client = postgres(testDb.url, { max: 1, onnotice: () => {} });
    let statementAfterLoss: Promise<string> | undefined;
    const outcome = await client
      .begin(async (tx) => {
        const [{ pid }] = await tx`select pg_backend_pid() as pid`;
        await admin`select pg_terminate_backend(${pid})`;
        await Bun.sleep(50);
        statementAfterLoss = tx`select 1`.then(() => "ran", (error) => String(error.code));
        await statementAfterLoss;
      })
      .then(() => "committed", (error) => String(error.code));
    expect(["CONNECTION_CLOSED", "57P01"]).toContain(outcome);
    // The transaction's next statement is refused (unpatched it never settled, or ran on the
    // connection after it had reconnected for someone else).
    const refused = await pollUntil("the statement after the loss", async () => statementAfterLoss, 5_000, 10);
    expect(["CONNECTION_CLOSED", "57P01"]).toContain(await refused);
    expect([...(await client`select 2 as two`)]).toEqual([{ two: 2 }]);
    await client.end();
  });

  test(`${ROUNDS} rounds of pg_terminate_backend mid-match: the process lives and every match completes`, async () => {
    server = await spawnServer(testDb.url, "connection-loss");
    const tableIds: string[] = [];
    for (let t = 0; t < TABLES; t++) {
      const registered = await server.api("POST", "/api/auth/register", { body: { email: `loss${t}@example.com`, password: "a long password" } });
      const token = registered.body.token as string;
      expect((await server.api("POST", "/api/me/balance/faucet", { token })).status).toBe(200);
      // Callers never raise, so nobody busts with 500 big blinds: each match plays all its hands.
      const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: MAX_HANDS, buyIn: 5_000 } });
      expect(table.status).toBe(201);
      for (const seat of [0, 1]) {
        const bot = await server.api("POST", "/api/bots", { token, body: { name: `caller${t}_${seat}`, strategy: "caller" } });
        expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: bot.body.botId } })).status).toBe(201);
      }
      tableIds.push(table.body.tableId);
    }

    // Our own probe connections are terminated too: they retry like the service's writes.
    const running = () =>
      retryTransient(async () => (await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from tables where status = 'running'`))[0].n);
    let roundsMidMatch = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await Bun.sleep(150);
      const before = await running();
      const terminated = await terminateBackends();
      if (before > 0 && terminated > 0) roundsMidMatch += 1;
    }
    // Most rounds hit matches in play (the first always does: the matches play for seconds).
    expect(roundsMidMatch).toBeGreaterThanOrEqual(Math.min(2, ROUNDS));

    await pollUntil("every match to end", async () => (await running()) === 0, 120_000, 200);
    expect(server.child.exitCode).toBeNull();
    expect((await server.api("GET", "/health")).status).toBe(200);

    const statuses = await rowsOf<{ status: string; n: number }>(database.db, sql`select status, count(*)::int as n from tables group by status`);
    expect(statuses).toEqual([{ status: "finished", n: TABLES }]);
    const matches = await rowsOf<{ id: string; status: string; hands_played: number; written: number; last: number }>(
      database.db,
      sql`select m.id, m.status, m.hands_played, count(h.number)::int as written, max(h.number) as last
          from matches m left join hands h on h.match_id = m.id group by m.id`,
    );
    expect(matches).toHaveLength(TABLES);
    for (const match of matches) {
      expect(match).toMatchObject({ status: "completed", hands_played: MAX_HANDS, written: MAX_HANDS, last: MAX_HANDS });
    }
    // Every match shows in the API; its hands page through to the end.
    const listed = (await server.api("GET", "/api/matches?limit=200")).body;
    expect(listed.map((m: any) => m.handsPlayed)).toEqual(Array(TABLES).fill(MAX_HANDS));

    // The losses were seen and retried, and nothing escaped as an unhandled error or an abort.
    const log = server.stderr();
    expect(log).toContain("retrying in");
    expect(log).not.toMatch(/unhandled rejection|uncaught exception|aborting the table/);

    expect(await perDeveloperProblems(database.db)).toEqual([]);
    expect(await matchProblems(database.db)).toEqual([]);
    const audit = await auditLedger(database.db);
    expect(audit.problems).toEqual([]);
    server.child.kill("SIGTERM");
    expect(await server.child.exited).toBe(0);
    const cli = await runAuditCli(testDb.url);
    expect(cli.exitCode).toBe(0);
  }, 180_000);
});
