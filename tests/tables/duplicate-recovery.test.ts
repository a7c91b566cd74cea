/**
 * A duplicate pair across a crash (issue 32): SIGKILL mid-pair, and the restart resumes both copies
 * (each its own match, same match ids) from one hand number, so copy 2's hand n stays copy 1's hand-n
 * deck; a waiting pair is kept whole (its seats at both copies) and can be closed as one; the books
 * balance throughout.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, queryRows, type Database } from "../../src/db";
import type { StoredHand } from "../../src/modules/match-host/hand-history";
import { auditLedger } from "../../src/modules/credits/audit";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { storedHandsOf } from "../support/stored-hands";
import { callApi } from "../support/http";
import { until } from "../support/nodes";
import { spawnMain } from "../support/process";

setDefaultTimeout(120_000);

let testDb: TestDatabase;
let database: Database;
beforeAll(async () => {
  testDb = await createTestDatabase("duplicate_recovery");
  database = await openDatabase({ databaseUrl: testDb.url, maxConnections: 2 });
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

async function boot() {
  const server = await spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, HOST_ID: "duplicate-crash" });
  return { ...server, api: (method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(server.url, method, path, options) };
}

const handsOf = async (matchId: string) => new Map((await storedHandsOf(database.db, matchId)).map((hand) => [hand.handNumber, hand]));
const holeCards = (hand: StoredHand, seat: number) => JSON.stringify(hand.events.find((e) => e.type === "hole_cards" && e.seat === seat));

test("SIGKILL mid-pair: both copies resume from one hand number, copy 2's hand n still copy 1's hand-n deck; a waiting pair stays whole", async () => {
  const first = await boot();
  const { token } = (await first.api("POST", "/api/auth/register", { body: { email: "dup-crash@example.com", password: "a long password" } })).body;
  expect((await first.api("POST", "/api/me/balance/faucet", { token })).status).toBe(200);
  const bot = async (name: string) => (await first.api("POST", "/api/bots", { token, body: { name, strategy: "caller" } })).body.botId as string;
  // Two callers with blinds of 1: nobody busts before the kill; the pair plays on until they leave.
  const running = (await first.api("POST", "/api/tables", { token, body: { duplicate: true, maxPlayers: 2, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body;
  const [a, b] = [await bot("a"), await bot("b")];
  for (const botId of [a, b]) expect((await first.api("POST", `/api/tables/${running.tableId}/join`, { token, body: { botId } })).status).toBe(201);
  const waiting = (await first.api("POST", "/api/tables", { token, body: { duplicate: true, maxPlayers: 2 } })).body;
  const patient = await bot("patient");
  await first.api("POST", `/api/tables/${waiting.twinTableId}/join`, { token, body: { botId: patient } });
  const copies = [running.tableId, running.twinTableId] as string[];
  const matchIds = async () => Promise.all(copies.map(async (id) => (await first.api("GET", `/api/tables/${id}`)).body.matchId as string));
  await until(async () => (await Promise.all(copies.map(async (id) => (await first.api("GET", `/api/tables/${id}`)).body.handsPlayed))).every((n) => n > 20), 30_000, "both copies under way");
  const ids = await matchIds();
  first.child.kill("SIGKILL");
  await first.child.exited;
  expect((await auditLedger(database.db)).problems).toEqual([]);
  // Running matches' secrets are sealed: only their recorded numbers are read here (the view `hands`).
  const recordedBefore = await Promise.all(ids.map(async (id) => Math.max(0, ...(await queryRows<{ number: number }>(database.db, sql`select number from hands where match_id = ${id}`)).map((r) => r.number))));

  const second = await boot();
  try {
    // Both copies resumed, with their own match ids, and play on.
    await until(async () => {
      const views = await Promise.all(copies.map(async (id) => (await second.api("GET", `/api/tables/${id}`)).body));
      return views.every((v, i) => v.status === "running" && v.matchId === ids[i] && v.handsPlayed > recordedBefore[i] + 10);
    }, 60_000, "both copies to play on after the restart");
    // The waiting pair came back whole: its bot at both copies, seats swapped; closing either closes both.
    const waitingViews = await Promise.all([waiting.tableId, waiting.twinTableId].map(async (id) => (await second.api("GET", `/api/tables/${id}`)).body));
    expect(waitingViews.map((v) => v.seats)).toEqual([[{ seat: 0, botId: patient, chips: 1000, leaving: false }], [{ seat: 1, botId: patient, chips: 1000, leaving: false }]]);
    expect((await second.api("DELETE", `/api/tables/${waiting.tableId}`, { token })).body.refunds).toEqual([{ botId: patient, cashout: 1000 }]);
    // A leave at copy 1 folds the bot at both copies: both matches end.
    expect((await second.api("POST", `/api/tables/${running.tableId}/leave`, { token, body: { botId: a } })).body.status).toBe("leaving");
    await until(async () => (await Promise.all(copies.map(async (id) => (await second.api("GET", `/api/tables/${id}`)).body.status))).every((s) => s === "finished"), 60_000, "both copies to end");
  } finally {
    second.child.kill("SIGTERM");
    expect(await second.child.exited).toBe(0);
  }
  // After the crash both copies went on from one number, and every hand number both recorded dealt the same cards to the same seat.
  const [one, two] = await Promise.all(ids.map(handsOf));
  const resumedAt = [one, two].map((hands, i) => Math.min(...[...hands.keys()].filter((n) => n > recordedBefore[i])));
  expect(resumedAt[0]).toBe(resumedAt[1]);
  let compared = 0;
  for (const [n, hand] of one) {
    const other = two.get(n);
    if (!other) continue;
    for (const seat of [0, 1]) expect(holeCards(other, seat).replace(/"seat":\d/, "")).toBe(holeCards(hand, seat).replace(/"seat":\d/, ""));
    compared++;
  }
  expect(compared).toBeGreaterThan(30);
  const final = await auditLedger(database.db);
  expect(final.problems).toEqual([]);
  expect(final.openSeatChips).toBe(0);
});
