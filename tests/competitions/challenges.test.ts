import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { ensureHouse } from "../../src/modules/ladder/house";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("challenges");
});
afterAll(() => server.close());

const balanceOf = async (token: string) => (await server.api("GET", "/api/me/balance", { token })).body.balance as number;
const ledgerRows = (developerId: string) =>
  queryRows<{ type: string; amount: number; table_id: string | null }>(server.database.db, sql`select t.type, t.amount::int as amount, s.table_id from transactions t left join seats s on s.seq = t.seat_seq where t.developer_id = ${developerId} order by t.seq`);

async function expectAuditClean() {
  const report = await auditLedger(server.database.db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

describe("challenges", () => {
  test("refused for a bot not open to them, above its owner's buy-in, against the house; played unrated, counted in stats, the audit exact", async () => {
    const alice = await registerWithCredits(server, "challenger");
    const bob = await registerWithCredits(server, "opponent");
    const hero = (await createBot(server, alice.token, "hero", "caller")).botId;
    const villain = (await createBot(server, bob.token, "villain", "raiser")).botId;
    const own = (await createBot(server, alice.token, "own", "tight")).botId;
    const [aliceStart, bobStart] = [await balanceOf(alice.token), await balanceOf(bob.token)];
    const challenge = (body: Record<string, unknown>, token = alice.token) => server.api("POST", "/api/challenges", { token, body: { botId: hero, opponentBotId: villain, hands: 30, buyIn: 500, ...body } });

    // Not open: refused, nothing charged.
    const closed = await challenge({});
    expect(closed.status).toBe(409);
    expect(closed.body.error.code).toBe("NOT_OPEN_TO_CHALLENGES");
    expect((await server.api("GET", `/api/bots/${villain}/challenges`)).body).toEqual({ botId: villain, openToChallenges: false, maxBuyIn: null });

    // Only the owner opens it; then open up to 500.
    expect((await server.api("PUT", `/api/bots/${villain}/challenges`, { token: alice.token, body: { openToChallenges: true, maxBuyIn: 500 } })).status).toBe(403);
    expect((await server.api("PUT", `/api/bots/${villain}/challenges`, { token: bob.token, body: { openToChallenges: true } })).status).toBe(400);
    const opened = await server.api("PUT", `/api/bots/${villain}/challenges`, { token: bob.token, body: { openToChallenges: true, maxBuyIn: 500 } });
    expect(opened.body).toEqual({ botId: villain, openToChallenges: true, maxBuyIn: 500 });

    const tooHigh = await challenge({ buyIn: 501 });
    expect(tooHigh.status).toBe(409);
    expect(tooHigh.body.error.code).toBe("CHALLENGE_BUY_IN_TOO_HIGH");
    expect(tooHigh.body.error.details).toEqual({ maxBuyIn: 500 });
    expect((await challenge({ opponentBotId: own })).status).toBe(400);
    expect((await challenge({ hands: 0 })).status).toBe(400);
    expect((await challenge({ botId: villain }, alice.token)).status).toBe(403);

    // The house's bots take none.
    const houseId = await ensureHouse(server.database.db, server.app.services.bots, server.app.services.clock, ["caller"]);
    const [houseBot] = await queryRows<{ id: string }>(server.database.db, sql`select id from bots where developer_id = ${houseId} limit 1`);
    const house = await challenge({ opponentBotId: houseBot.id });
    expect(house.status).toBe(409);
    expect(house.body.error.code).toBe("HOUSE_TAKES_NO_CHALLENGES");

    expect([await balanceOf(alice.token), await balanceOf(bob.token)]).toEqual([aliceStart, bobStart]);
    expect((await ledgerRows(alice.developerId)).filter((row) => row.type !== "faucet")).toEqual([]);

    // Played: each owner pays its own buy-in.
    const played = await challenge({});
    expect(played.status).toBe(201);
    expect(played.body).toMatchObject({ botId: hero, opponentBotId: villain, hands: 30, buyIn: 500, rated: false });
    const { tableId } = played.body;
    // Nobody else joins a challenge's table.
    const intruder = await server.api("POST", `/api/tables/${tableId}/join`, { token: alice.token, body: { botId: own } });
    expect(intruder.status).toBe(409);
    expect(intruder.body.error.code).toBe("COMPETITION_TABLE");

    const table = await until(async () => {
      const read = (await server.api("GET", `/api/tables/${tableId}`)).body;
      return read.status === "finished" ? read : null;
    }, 30_000, "the challenge to finish");
    const match = (await server.api("GET", `/api/matches/${table.matchId}`)).body;
    const profits = Object.fromEntries(match.players.map((p: any) => [p.botId, p.finalChips - 500]));
    expect(Object.keys(profits).sort()).toEqual([hero, villain].sort());
    expect(profits[hero] + profits[villain]).toBe(0);

    // Not rated: no pending mark, no rated sequence, no rating row.
    const [record] = await queryRows<{ rating_pending: boolean; rated_seq: number | null }>(server.database.db, sql`select rating_pending, rated_seq from matches where id = ${table.matchId}`);
    expect(record).toEqual({ rating_pending: false, rated_seq: null });
    const rated = await queryRows<{ bot_id: string }>(server.database.db, sql`select bot_id from bot_ratings where bot_id in (${hero}, ${villain})`);
    expect(rated).toEqual([]);

    // Counted in stats and the net-chips leaderboard.
    for (const botId of [hero, villain]) {
      const stats = (await server.api("GET", `/api/stats/${botId}`)).body;
      expect(stats.matchesPlayed).toBe(1);
      expect(stats.netChips).toBe(profits[botId]);
    }

    // The ledger: one buy-in and one cashout per owner at that table, balances moved by the profit.
    for (const [dev, botId, start] of [[alice, hero, aliceStart], [bob, villain, bobStart]] as const) {
      const rows = (await ledgerRows(dev.developerId)).filter((row) => row.table_id === tableId);
      expect(rows.map((row) => row.type)).toEqual(["buy_in", "cashout"]);
      expect(rows[0].amount).toBe(-500);
      expect(rows[1].amount).toBe(500 + profits[botId]);
      expect(await balanceOf(dev.token)).toBe(start + profits[botId]);
    }
    await expectAuditClean();
  });

  test("an opponent whose owner cannot pay: the challenger is refunded exactly", async () => {
    const alice = await registerWithCredits(server, "rich");
    const poor = await registerWithCredits(server, "poor");
    const hero = (await createBot(server, alice.token, "hero", "caller")).botId;
    const villain = (await createBot(server, poor.token, "villain", "caller")).botId;
    // The poor owner sits another bot at a table of its own: its balance is now below the challenger's.
    const spender = (await createBot(server, poor.token, "spender", "caller")).botId;
    const own = (await server.api("POST", "/api/tables", { token: poor.token, body: { maxPlayers: 2, buyIn: 100 } })).body.tableId;
    expect((await server.api("POST", `/api/tables/${own}/join`, { token: poor.token, body: { botId: spender } })).status).toBe(201);
    const poorBalance = await balanceOf(poor.token);
    expect((await server.api("PUT", `/api/bots/${villain}/challenges`, { token: poor.token, body: { openToChallenges: true, maxBuyIn: poorBalance + 1 } })).status).toBe(200);
    const aliceStart = await balanceOf(alice.token);
    const refused = await server.api("POST", "/api/challenges", { token: alice.token, body: { botId: hero, opponentBotId: villain, hands: 10, buyIn: poorBalance + 1 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "OPPONENT_CANNOT_PLAY", details: { reason: "INSUFFICIENT_BALANCE" } });
    expect(await balanceOf(alice.token)).toBe(aliceStart);
    expect(await balanceOf(poor.token)).toBe(poorBalance);
    const rows = (await ledgerRows(alice.developerId)).filter((row) => row.type !== "faucet");
    expect(rows.map((row) => [row.type, row.amount])).toEqual([["buy_in", -(poorBalance + 1)], ["cashout", poorBalance + 1]]);
    // Closing it: no more challenges.
    expect((await server.api("PUT", `/api/bots/${villain}/challenges`, { token: poor.token, body: { openToChallenges: false } })).body.openToChallenges).toBe(false);
    await expectAuditClean();
  });
});
