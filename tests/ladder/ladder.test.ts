import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { fundedDeveloper, registeredDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { WsBot, type Message } from "../support/ws-bot";

// Ladder matches of a few hands, paired every 50 ms.
setDefaultTimeout(90_000);

let server: TestServer;
beforeAll(async () => {
  // The house's daily limit (default 2 buy-ins) out of the way: a newcomer that the cards favour would
  // otherwise win it before its reconnect, and no house bot would be offered to it (its own tests: house-limit).
  server = await startTestServer("ladder", { LADDER_HANDS: "4", LADDER_PAIR_EVERY_MS: "50", LADDER_ACTION_TIMEOUT_MS: "500", LADDER_HOUSE_DAILY_LIMIT: "100000000" });
});
afterAll(() => server.close());

const checkOrCall = (request: Message) => ({ action: request.legalActions.includes("check") ? "check" : "call" });
const enter = (token: string, botId: string, format?: string) => server.api("POST", "/api/ladder/entries", { token, body: format ? { botId, format } : { botId } });
const mine = async (token: string) => (await server.api("GET", "/api/me/ladder", { token })).body as any[];
const entryCount = async () => Number((await server.app.services.ladder.withFacts()).length);
/** Resolves once `n` pairing rounds ran whole after this call (a round under way at the call does not count). */
async function pairingRounds(n: number) {
  const { matchmaker } = server.app.services;
  const from = matchmaker.roundsCompleted;
  await until(async () => matchmaker.roundsCompleted >= from + 1 + n, 20_000, `${n} pairing rounds`);
}
/** Open seats the bot holds (a ladder round seats a bot before the round ends). */
const openSeats = async (botId: string) =>
  Number((await queryRows<{ n: string }>(server.database.db, sql`select count(*) as n from seats where bot_id = ${botId} and status = 'open'`))[0].n);

describe("the ladder's routes refuse bad input and change nothing", () => {
  test("401 without a token; 404 unknown bot; 403 someone else's bot; 400 bad format or body; 409 retired bot; 200 for the same entry again", async () => {
    const alice = await fundedDeveloper(server.api, { label: "lad-a" });
    const bob = await fundedDeveloper(server.api, { label: "lad-b" });
    const bobs = await createBot(server, bob.token, "bobs-bot", "tight");
    const before = await entryCount();
    const refusals: Array<[Promise<{ status: number; body: any }>, number, string]> = [
      [server.api("POST", "/api/ladder/entries", { body: { botId: bobs.botId } }), 401, "UNAUTHORIZED"],
      [enter(alice.token, "bot_00000000000000000000000000"), 404, "NOT_FOUND"],
      [enter(alice.token, bobs.botId), 403, "FORBIDDEN"],
      [enter(bob.token, bobs.botId, "nine-max"), 400, "VALIDATION_ERROR"],
      [server.api("POST", "/api/ladder/entries", { token: bob.token, body: { botId: bobs.botId, extra: 1 } }), 400, "VALIDATION_ERROR"],
      [server.api("POST", "/api/ladder/entries", { token: bob.token, body: {} }), 400, "VALIDATION_ERROR"],
      [server.api("DELETE", `/api/ladder/entries/${bobs.botId}`, { token: alice.token }), 403, "FORBIDDEN"],
      [server.api("DELETE", `/api/ladder/entries/${bobs.botId}`, { token: bob.token }), 404, "NOT_FOUND"],
      [server.api("DELETE", `/api/ladder/entries/${bobs.botId}?format=nine-max`, { token: bob.token }), 400, "VALIDATION_ERROR"],
      [server.api("GET", "/api/ladder?format=nine-max"), 400, "VALIDATION_ERROR"],
      [server.api("GET", "/api/ladder?limit=0"), 400, "VALIDATION_ERROR"],
      [server.api("GET", "/api/me/ladder"), 401, "UNAUTHORIZED"],
    ];
    for (const [call, status, code] of refusals) {
      const answer = await call;
      expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
    }
    expect(refusals.length).toBe(12);
    const retired = await createBot(server, bob.token, "retired", "caller");
    expect((await server.api("DELETE", `/api/bots/${retired.botId}`, { token: bob.token })).status).toBe(200);
    const retiredEntry = await enter(bob.token, retired.botId);
    expect(retiredEntry.status).toBe(409);
    expect(retiredEntry.body.error.code).toBe("BOT_RETIRED");
    expect(await entryCount()).toBe(before);
  });
});

describe("a newcomer's bot plays rated ladder matches at once", () => {
  test("a remote bot entered alone meets the house's built-ins; its matches are ordinary rated matches on ladder tables; it pauses while offline and resumes; leaving stops the pairing", async () => {
    const dev = await fundedDeveloper(server.api, { label: "newcomer" });
    const bot = await createBot(server, dev.token, "my-first-bot");
    const ws = await new WsBot(server.url, bot.apiKey, checkOrCall).connect();
    const entered = await enter(dev.token, bot.botId);
    expect(entered.status).toBe(201);
    expect(entered.body).toMatchObject({ botId: bot.botId, format: "heads-up", status: "active", reason: null, matchesPlayed: 0 });
    expect((await enter(dev.token, bot.botId)).status).toBe(200);

    const started = await ws.next((m) => m.type === "match_started", 20_000);
    const table = (await server.api("GET", `/api/tables/${started.tableId}`)).body;
    expect(table.ladder).toBe("heads-up");
    expect(table.config).toMatchObject({ buyIn: 1000, smallBlind: 5, bigBlind: 10, maxHands: 4 });
    const lobby = (await server.api("GET", "/api/tables")).body as any[];
    expect(lobby.find((t) => t.tableId === started.tableId)?.ladder ?? "finished").toMatch(/heads-up|finished/);
    await ws.next((m) => m.type === "match_ended", 20_000);
    // More matches follow by themselves, against the house (another developer: rated).
    await until(async () => (await mine(dev.token))[0]?.matchesPlayed >= 2, 20_000, "two ladder matches");
    // Applied to the ratings a moment after they are recorded.
    await until(async () => (await server.api("GET", `/api/ratings/${bot.botId}`)).body.matchesPlayed >= 2, 20_000, "two rated matches");
    const rating = (await server.api("GET", `/api/ratings/${bot.botId}`)).body;
    const standings = (await server.api("GET", "/api/ladder?format=heads-up")).body as any[];
    const mineInStandings = standings.find((s) => s.botId === bot.botId);
    expect(mineInStandings).toMatchObject({ name: "my-first-bot", rating: rating.rating, matchesPlayed: expect.any(Number) });
    expect(standings.some((s) => s.name.startsWith("house-"))).toBe(true);
    expect((await server.api("GET", "/health")).body.matchmaker).toBe(true);

    // Offline: paused with BOT_OFFLINE; back online: active again and paired.
    ws.disconnect();
    await until(async () => (await mine(dev.token))[0]?.reason === "BOT_OFFLINE", 20_000, "BOT_OFFLINE");
    const since = ws.messages.length;
    await ws.connect();
    await until(async () => (await mine(dev.token))[0]?.status === "active", 20_000, "active again");
    await ws.next((m) => m.type === "match_started", 20_000, since);

    // Leaving: the match in play finishes, and no other starts.
    const left = await server.api("DELETE", `/api/ladder/entries/${bot.botId}`, { token: dev.token });
    expect(left.status).toBe(200);
    await until(async () => !(await server.app.services.ladder.withFacts({ botId: bot.botId })).some((e) => e.facts.seated), 20_000, "the last match to end");
    const startedCount = ws.ofType("match_started").length;
    await pairingRounds(3);
    expect(await openSeats(bot.botId)).toBe(0);
    expect(ws.ofType("match_started").length).toBe(startedCount);
    expect(await mine(dev.token)).toEqual([]);
    ws.disconnect();
    const report = await auditLedger(server.database.db);
    expect(report.problems).toEqual([]);
  });

  test("a developer who cannot pay the buy-in is paused (INSUFFICIENT_BALANCE) and resumes after a faucet claim; two bots of one developer never share a ladder table", async () => {
    const broke = await registeredDeveloper(server.api, { label: "broke" });
    const token = broke.token;
    const first = await createBot(server, token, "first", "caller");
    const second = await createBot(server, token, "second", "raiser");
    expect((await enter(token, first.botId)).body).toMatchObject({ status: "paused", reason: "INSUFFICIENT_BALANCE" });
    expect((await enter(token, second.botId)).body.reason).toBe("INSUFFICIENT_BALANCE");
    await pairingRounds(3);
    expect((await mine(token)).map((e) => [e.matchesPlayed, e.reason])).toEqual([
      [0, "INSUFFICIENT_BALANCE"],
      [0, "INSUFFICIENT_BALANCE"],
    ]);
    for (const bot of [first, second]) expect(await openSeats(bot.botId)).toBe(0);
    expect((await server.api("POST", "/api/me/balance/faucet", { token })).status).toBe(200);
    await until(async () => (await mine(token)).every((e) => e.matchesPlayed >= 2), 30_000, "both bots to play");
    // Every ladder table: no developer twice.
    const list = await queryRows<{ table_id: string; developer_id: string }>(server.database.db, sql`select s.table_id, coalesce(s.developer_id, (select b.developer_id from bots b where b.id = s.bot_id)) as developer_id from seats s join tables t on t.id = s.table_id where t.ladder is not null`);
    const byTable = new Map<string, string[]>();
    for (const row of list) byTable.set(row.table_id, [...(byTable.get(row.table_id) ?? []), row.developer_id]);
    expect(byTable.size).toBeGreaterThan(2);
    for (const developers of byTable.values()) expect(new Set(developers).size).toBe(developers.length);
    for (const botId of [first.botId, second.botId]) expect((await server.api("DELETE", `/api/ladder/entries/${botId}`, { token })).status).toBe(200);
    await until(async () => (await server.app.services.ladder.withFacts({ developerId: broke.developerId })).length === 0, 5_000, "entries gone");
  });

  test("a ladder table stranded half-seated (its matchmaker died between making it and seating everyone) is closed and its seat refunded", async () => {
    const dev = await fundedDeveloper(server.api, { label: "stranded" });
    const lonely = await createBot(server, dev.token, "lonely", "caller");
    const { ladder, tables, commands } = server.app.services;
    const house = (await queryRows<{ id: string }>(server.database.db, sql`select id from developers where email = 'house@ladder.invalid'`))[0].id;
    const tableId = await tables.createLadderTable("heads-up", house, { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 4, actionTimeoutMs: 500 });
    await commands.execute(tableId, { op: "join", developerId: dev.developerId, botId: lonely.botId });
    expect((await server.api("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(9_000);
    await server.database.db.execute(sql`update tables set created_at = now() - interval '1 minute' where id = ${tableId}`);
    await until(async () => (await server.api("GET", `/api/tables/${tableId}`)).body.status === "closed", 10_000, "the stranded table closed");
    expect((await server.api("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(10_000);
    expect((await ladder.withFacts({ botId: lonely.botId })).length).toBe(0);
  });
});
