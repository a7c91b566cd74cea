/**
 * A seat's ledger rows (buy_in, cashout) store the seat and not its bot and table (issue 35): the
 * API reads those through the seat. GET /api/me/transactions answers the same as when every row
 * held them, for normal, duplicate and ladder tables, and a cashout still names its match (none
 * for a seat that left its table before the match, though the table played one later).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { useHarness } from "../support/app";

setDefaultTimeout(90_000);

const h = useHarness("ledger_seat_refs");

interface Row {
  transactionId: string;
  type: string;
  botId: string | null;
  tableId: string | null;
  matchId: string | null;
}

const botOf = async (token: string, name: string, strategy: string) =>
  (await h.call("POST", "/api/bots", { token, body: { name, strategy } })).body.botId as string;
const join = async (token: string, tableId: string, botId: string) =>
  expect((await h.call("POST", `/api/tables/${tableId}/join`, { token, body: { botId } })).status).toBe(201);
const matchOf = async (tableId: string) => (await h.call("GET", `/api/tables/${tableId}`)).body.matchId as string;
/** The whole body of GET /api/me/transactions, as the API serializes it. */
const ledgerBody = async (token: string) => {
  const answer = await h.call("GET", "/api/me/transactions?limit=100", { token });
  expect(answer.status).toBe(200);
  return answer.body as Row[];
};

describe("a seat's ledger rows name their bot and table through the seat", () => {
  test("normal (a leave before the match, then a played match), duplicate and ladder tables: the same answers as rows that stored them, and new rows store neither", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const [aliceBot, aliceTwin, bobBot] = [await botOf(alice.token, "a1", "raiser"), await botOf(alice.token, "a2", "caller"), await botOf(bob.token, "b1", "caller")];
    const config = { maxPlayers: 2, maxHands: 6, buyIn: 500, smallBlind: 5, bigBlind: 10 };

    // Normal table: alice sits, leaves while it waits (a cashout with no match), sits again; bob's join starts the match.
    const normal = (await h.call("POST", "/api/tables", { token: alice.token, body: config })).body.tableId as string;
    await join(alice.token, normal, aliceBot);
    expect((await h.call("POST", `/api/tables/${normal}/leave`, { token: alice.token, body: { botId: aliceBot } })).status).toBe(200);
    await join(alice.token, normal, aliceBot);
    await join(bob.token, normal, bobBot);
    await h.app.services.host.settled();

    // Duplicate pair (alice's own bots): one join seats a bot at both copies.
    const pair = (await h.call("POST", "/api/tables", { token: alice.token, body: { ...config, duplicate: true } })).body;
    await join(alice.token, pair.tableId, aliceBot);
    await join(alice.token, pair.tableId, aliceTwin);
    await h.app.services.host.settled();

    // Ladder table (made as the matchmaker makes it), seated by the ordinary join.
    const house = await h.fundedDeveloper();
    const ladder = await h.app.services.tables.createLadderTable("heads-up", house.developerId, { ...config, actionTimeoutMs: 2000 });
    await join(alice.token, ladder, aliceBot);
    await join(bob.token, ladder, bobBot);
    await h.app.services.host.settled();

    const matches = { normal: await matchOf(normal), copy1: await matchOf(pair.tableId), copy2: await matchOf(pair.twinTableId), ladder: await matchOf(ladder) };
    expect(Object.values(matches).every((id) => typeof id === "string")).toBe(true);
    const seatRow = (type: string, botId: string, tableId: string, matchId: string | null) => ({ type, botId, tableId, matchId });
    const expected = {
      alice: [
        seatRow("buy_in", aliceBot, normal, null),
        seatRow("cashout", aliceBot, normal, null), // the leave: its table's match came later
        seatRow("buy_in", aliceBot, normal, null),
        seatRow("cashout", aliceBot, normal, matches.normal),
        ...[aliceBot, aliceTwin].flatMap((bot) => [
          seatRow("buy_in", bot, pair.tableId, null),
          seatRow("buy_in", bot, pair.twinTableId, null),
          seatRow("cashout", bot, pair.tableId, matches.copy1),
          seatRow("cashout", bot, pair.twinTableId, matches.copy2),
        ]),
        seatRow("buy_in", aliceBot, ladder, null),
        seatRow("cashout", aliceBot, ladder, matches.ladder),
      ],
      bob: [seatRow("buy_in", bobBot, normal, null), seatRow("cashout", bobBot, normal, matches.normal), seatRow("buy_in", bobBot, ladder, null), seatRow("cashout", bobBot, ladder, matches.ladder)],
    };
    const sorted = (rows: Array<Omit<Row, "transactionId">>) => rows.map((r) => JSON.stringify(r)).sort();
    const now = { alice: await ledgerBody(alice.token), bob: await ledgerBody(bob.token) };
    for (const who of ["alice", "bob"] as const) {
      const seatRows = now[who].filter((r) => r.type !== "faucet").map(({ type, botId, tableId, matchId }) => ({ type, botId, tableId, matchId }));
      expect(sorted(seatRows)).toEqual(sorted(expected[who]));
      expect(now[who].filter((r) => r.type === "faucet").map(({ botId, tableId, matchId }) => [botId, tableId, matchId])).toEqual([[null, null, null]]);
    }
    expect(now.alice).toHaveLength(1 + 14);
    expect(now.bob).toHaveLength(1 + 4);

    // New rows store the seat only: no bot, no table.
    const developers = [alice.developerId, bob.developerId];
    const stored = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from transactions where developer_id = any(${sql.param(developers)}::text[]) and seat_seq is not null and seat_id is null and bot_id is null and table_id is null`,
    );
    expect(stored[0].n).toBe(14 + 4);

    // Rows as written before (bot and table on the row itself, as the seat's) answer byte for byte the same.
    const filled = await queryRows(
      h.database.db,
      sql`update transactions t set bot_id = s.bot_id, table_id = s.table_id from seats s
          where s.seq = t.seat_seq and t.developer_id = any(${sql.param(developers)}::text[]) returning t.id`,
    );
    expect(filled).toHaveLength(14 + 4);
    expect(JSON.stringify(await ledgerBody(alice.token))).toBe(JSON.stringify(now.alice));
    expect(JSON.stringify(await ledgerBody(bob.token))).toBe(JSON.stringify(now.bob));
    await h.expectAuditClean();
  });
});
