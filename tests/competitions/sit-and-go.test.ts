import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { blindsAt, type BlindLevel } from "../../src/poker/blind-levels";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(120_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("sit_and_go");
});
afterAll(() => server.close());

// Bots that never shove (callers, and tight bots that raise to 3 big blinds): a freezeout lasts long enough for its blinds to rise.
const STRATEGIES = ["caller", "tight"];
const balanceOf = async (token: string) => (await server.api("GET", "/api/me/balance", { token })).body.balance as number;
const ledgerAt = (developerId: string, tableId: string) =>
  queryRows<{ type: string; amount: number }>(server.database.db, sql`select t.type, t.amount::int as amount from transactions t join seats s on s.seq = t.seat_seq where t.developer_id = ${developerId} and s.table_id = ${tableId} order by t.seq`);

async function expectAuditClean() {
  const report = await auditLedger(server.database.db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

/** `n` developers, each with one built-in bot and its starting balance. */
async function entrants(n: number, label: string) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const dev = await registerWithCredits(server, `${label}${i}`);
      const botId = (await createBot(server, dev.token, `${label}-${i}`, STRATEGIES[i % STRATEGIES.length])).botId;
      return { ...dev, botId, start: await balanceOf(dev.token) };
    }),
  );
}

async function allHands(matchId: string): Promise<any[]> {
  const hands: any[] = [];
  for (let after = 0; ; ) {
    const page = (await server.api("GET", `/api/matches/${matchId}/hands?limit=200&after=${after}`)).body.hands as any[];
    if (page.length === 0) return hands;
    hands.push(...page);
    after = page[page.length - 1].handNumber;
  }
}

async function playSitAndGo(seats: number, buyIn: number, blindLevels: BlindLevel[]) {
  const creator = await registerWithCredits(server, `creator${seats}`);
  const created = await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "sit-and-go", seats, buyIn, blindLevels } });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ kind: "sit-and-go", status: "registering", seats, buyIn, blindLevels, entries: [], places: [], matchId: null });
  const id = created.body.tournamentId;
  const players = await entrants(seats, `sng${seats}-`);
  for (const player of players) {
    const entered = await server.api("POST", `/api/tournaments/${id}/entries`, { token: player.token, body: { botId: player.botId } });
    expect(entered.status).toBe(201);
    expect(entered.body.chips).toBe(buyIn);
  }
  const finished = await until(async () => {
    const read = (await server.api("GET", `/api/tournaments/${id}`)).body;
    return read.status === "finished" ? read : null;
  }, 100_000, `the ${seats}-bot sit-and-go to finish`);
  const hands = await allHands(finished.matchId);
  return { id, finished, players, hands, tableId: finished.tableId as string };
}

function expectFreezeout(run: Awaited<ReturnType<typeof playSitAndGo>>, seats: number, buyIn: number, blindLevels: BlindLevel[]) {
  const { finished, players, hands } = run;
  expect(finished.entries.map((e: any) => e.botId).sort()).toEqual(players.map((p) => p.botId).sort());
  // The winner alone at place 1 with every chip; every other bot's cashout 0.
  expect(finished.places.length).toBe(seats);
  expect(finished.places.filter((p: any) => p.place === 1).map((p: any) => [p.place, p.cashout])).toEqual([[1, seats * buyIn]]);
  expect(finished.places.slice(1).every((p: any) => p.cashout === 0)).toBe(true);
  // Bust order from the histories: the hand each bot busted in and the stack it began that hand with.
  const bust = new Map<string, { hand: number; stack: number }>();
  for (const hand of hands) for (const p of hand.players) if (p.finalStack === 0 && !bust.has(p.botId)) bust.set(p.botId, { hand: hand.handNumber, stack: p.startingStack });
  expect(bust.size).toBe(seats - 1);
  expect(bust.has(finished.places[0].botId)).toBe(false);
  // Each place is 1 + the bots that busted later, or in the same hand from a bigger stack (ties share).
  let placed = 0;
  for (const entry of finished.places.slice(1)) {
    const mine = bust.get(entry.botId)!;
    const better = [...bust.values()].filter((other) => other.hand > mine.hand || (other.hand === mine.hand && other.stack > mine.stack)).length + 1;
    expect({ botId: entry.botId, place: entry.place }).toEqual({ botId: entry.botId, place: 1 + better });
    placed += 1;
  }
  expect(placed).toBe(seats - 1);
  for (let i = 1; i < finished.places.length; i++) expect(finished.places[i].place).toBeGreaterThanOrEqual(finished.places[i - 1].place);
  // The last hand: the winner alone with every chip.
  const last = hands[hands.length - 1];
  expect(last.players.filter((p: any) => p.finalStack > 0).map((p: any) => [p.botId, p.finalStack])).toEqual([[finished.places[0].botId, seats * buyIn]]);
  // Rising blinds: every hand carries its own blinds, the schedule's for its number.
  let checked = 0;
  for (const hand of hands) {
    expect({ hand: hand.handNumber, smallBlind: hand.smallBlind, bigBlind: hand.bigBlind }).toEqual({ hand: hand.handNumber, ...blindsAt({ smallBlind: 0, bigBlind: 0, blindLevels }, hand.handNumber) });
    checked += 1;
  }
  expect(checked).toBe(hands.length);
  expect(new Set(hands.map((h: any) => h.bigBlind)).size).toBeGreaterThan(1);
}

async function expectMoneyExact(run: Awaited<ReturnType<typeof playSitAndGo>>, buyIn: number) {
  const cashoutOf = new Map(run.finished.places.map((p: any) => [p.botId, p.cashout]));
  let checked = 0;
  for (const player of run.players) {
    const rows = await ledgerAt(player.developerId, run.tableId);
    expect(rows).toEqual([{ type: "buy_in", amount: -buyIn }, { type: "cashout", amount: cashoutOf.get(player.botId) as number }]);
    expect(await balanceOf(player.token)).toBe(player.start - buyIn + (cashoutOf.get(player.botId) as number));
    checked += 1;
  }
  expect(checked).toBe(run.players.length);
  await expectAuditClean();
}

describe("sit-and-go", () => {
  test("4 bots: a freezeout with rising blinds, places, the winner's cashout all chips, the audit exact", async () => {
    const levels = [{ hands: 2, smallBlind: 10, bigBlind: 20 }, { hands: 3, smallBlind: 25, bigBlind: 50 }, { hands: 5, smallBlind: 50, bigBlind: 100 }, { hands: 1, smallBlind: 150, bigBlind: 300 }];
    const run = await playSitAndGo(4, 500, levels);
    expectFreezeout(run, 4, 500, levels);
    await expectMoneyExact(run, 500);
    // Rated like any multi-way match between developers' bots.
    const [record] = await queryRows<{ rating_pending: boolean; rated_seq: number | null }>(server.database.db, sql`select rating_pending, rated_seq from matches where id = ${run.finished.matchId}`);
    expect(record.rating_pending || record.rated_seq !== null).toBe(true);
  });

  test("10 bots: a freezeout with the default schedule", async () => {
    const created = await server.api("POST", "/api/tournaments", { token: (await registerWithCredits(server, "defaults")).token, body: { kind: "sit-and-go", seats: 10, buyIn: 1000 } });
    expect(created.body.blindLevels.length).toBe(10);
    expect(created.body.blindLevels[0]).toEqual({ hands: 10, smallBlind: 10, bigBlind: 20 });
    expect(created.body.blindLevels[9]).toEqual({ hands: 10, smallBlind: 250, bigBlind: 500 });
    const run = await playSitAndGo(10, 1000, created.body.blindLevels);
    expectFreezeout(run, 10, 1000, created.body.blindLevels);
    await expectMoneyExact(run, 1000);
  });

  test("withdrawal and cancellation refund exactly; bad input changes nothing", async () => {
    const creator = await registerWithCredits(server, "canceller");
    const bad = [
      { kind: "sit-and-go", seats: 1, buyIn: 100 },
      { kind: "sit-and-go", seats: 11, buyIn: 100 },
      { kind: "sit-and-go", seats: 3, buyIn: 100, blindLevels: [] },
      { kind: "sit-and-go", seats: 3, buyIn: 100, blindLevels: [{ hands: 5, smallBlind: 20, bigBlind: 10 }] },
      { kind: "sit-and-go", seats: 3, buyIn: 100, blindLevels: [{ hands: 5, smallBlind: 100, bigBlind: 200 }] },
      { kind: "knockout", seats: 3, buyIn: 100 },
    ];
    for (const body of bad) {
      const refused = await server.api("POST", "/api/tournaments", { token: creator.token, body });
      expect({ body, status: refused.status, code: refused.body.error?.code }).toEqual({ body, status: 400, code: "VALIDATION_ERROR" });
    }
    const created = await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "sit-and-go", seats: 3, buyIn: 300 } });
    const id = created.body.tournamentId;
    const [a, b] = await entrants(2, "refund-");
    const second = (await createBot(server, a.token, "second", "caller")).botId;
    for (const p of [a, b]) expect((await server.api("POST", `/api/tournaments/${id}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
    // One bot per developer; only the owner enters or withdraws; nobody joins the table directly.
    const twice = await server.api("POST", `/api/tournaments/${id}/entries`, { token: a.token, body: { botId: second } });
    expect(twice.body.error.code).toBe("DEVELOPER_ALREADY_ENTERED");
    expect((await server.api("POST", `/api/tournaments/${id}/entries`, { token: b.token, body: { botId: second } })).status).toBe(403);
    const direct = await server.api("POST", `/api/tables/${created.body.tableId}/join`, { token: a.token, body: { botId: second } });
    expect(direct.body.error.code).toBe("COMPETITION_TABLE");
    expect((await server.api("DELETE", `/api/tables/${created.body.tableId}`, { token: creator.token })).body.error.code).toBe("COMPETITION_TABLE");
    expect((await server.api("GET", `/api/tournaments/${id}`)).body.entries.length).toBe(2);

    const withdrawn = await server.api("DELETE", `/api/tournaments/${id}/entries/${a.botId}`, { token: a.token });
    expect(withdrawn.body).toEqual({ tournamentId: id, botId: a.botId, cashout: 300 });
    expect(await balanceOf(a.token)).toBe(a.start);
    expect(await ledgerAt(a.developerId, created.body.tableId)).toEqual([{ type: "buy_in", amount: -300 }, { type: "cashout", amount: 300 }]);
    expect((await server.api("DELETE", `/api/tournaments/${id}/entries/${a.botId}`, { token: a.token })).body.error.code).toBe("BOT_NOT_ENTERED");

    expect((await server.api("DELETE", `/api/tournaments/${id}`, { token: b.token })).status).toBe(403);
    const cancelled = await server.api("DELETE", `/api/tournaments/${id}`, { token: creator.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    expect(cancelled.body.refunds).toEqual([{ botId: b.botId, cashout: 300 }]);
    expect(await balanceOf(b.token)).toBe(b.start);
    expect((await server.api("POST", `/api/tournaments/${id}/entries`, { token: a.token, body: { botId: a.botId } })).body.error.code).toBe("TOURNAMENT_NOT_REGISTERING");
    expect((await server.api("DELETE", `/api/tournaments/${id}`, { token: creator.token })).body.error.code).toBe("TOURNAMENT_NOT_REGISTERING");
    expect(await balanceOf(a.token)).toBe(a.start);

    // At most 10 open tournaments a developer.
    const flooder = await registerWithCredits(server, "flooder");
    for (let i = 0; i < 10; i++) expect((await server.api("POST", "/api/tournaments", { token: flooder.token, body: { kind: "sit-and-go", seats: 2, buyIn: 100 } })).status).toBe(201);
    const eleventh = await server.api("POST", "/api/tournaments", { token: flooder.token, body: { kind: "sit-and-go", seats: 2, buyIn: 100 } });
    expect(eleventh.body.error).toMatchObject({ code: "TOO_MANY_OPEN_TOURNAMENTS", details: { limit: 10 } });
    // Listing by status and kind.
    const cancelledList = (await server.api("GET", "/api/tournaments?status=cancelled&kind=sit-and-go")).body.map((t: any) => t.tournamentId);
    expect(cancelledList).toContain(id);
    expect((await server.api("GET", "/api/tournaments?status=registering")).body.map((t: any) => t.tournamentId)).not.toContain(id);
    expect((await server.api("GET", "/api/tournaments?status=nope")).status).toBe(400);
    expect((await server.api("GET", "/api/tournaments/trn_missing")).status).toBe(404);
    await expectAuditClean();
  });
});
