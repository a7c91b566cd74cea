import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { useHarness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(90_000);

const h = useHarness("reset_stacks");

const STACK = 200;
const BANKROLL = 4000;

interface Hand {
  handNumber: number;
  players: { seat: number; botId: string; startingStack: number; finalStack: number }[];
}

async function resetTable(seats: number, body: Record<string, unknown> = {}) {
  const owner = await h.fundedDeveloper();
  const table = await h.call("POST", "/api/tables", { token: owner.token, body: { maxPlayers: seats, maxHands: 300, buyIn: BANKROLL, smallBlind: 5, bigBlind: 10, resetStacks: STACK, ...body } });
  expect(table.status).toBe(201);
  expect(table.body.config.resetStacks).toBe(STACK);
  return table.body.tableId as string;
}

async function allHands(matchId: string): Promise<Hand[]> {
  const hands: Hand[] = [];
  for (let after = 0; ; ) {
    const page = await h.call("GET", `/api/matches/${matchId}/hands?limit=200&after=${after}`);
    hands.push(...page.body.hands);
    if (page.body.hands.length < 200) return hands;
    after = hands.at(-1)!.handNumber;
  }
}

describe("reset-stacks tables: every hand a full stack, the buy-in a bankroll", () => {
  test("resetStacks below bigBlind or above buyIn is a 400 and creates nothing", async () => {
    const owner = await h.fundedDeveloper();
    for (const resetStacks of [5, 1001]) {
      const refused = await h.call("POST", "/api/tables", { token: owner.token, body: { maxPlayers: 2, buyIn: 1000, bigBlind: 10, smallBlind: 5, resetStacks } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "resetStacks" } });
    }
    const lobby = await h.call("GET", "/api/tables");
    expect(lobby.body.filter((table: any) => table.config.resetStacks !== undefined)).toEqual([]);
  });

  for (const seats of [2, 3]) {
    test(`${seats} seats of built-ins: full stacks every hand, bankrolls move by each hand's result, conserved, cashed out; the audit holds`, async () => {
      const tableId = await resetTable(seats);
      const players: { developerId: string; token: string; botId: string; balanceBefore: number }[] = [];
      for (let i = 0; i < seats; i++) {
        const dev = await h.fundedDeveloper();
        const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name: `reset-${seats}-${i}`, strategy: ["tight", "random", "caller"][i] } });
        const balanceBefore = (await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance;
        const joined = await h.call("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: bot.body.botId } });
        expect(joined.status).toBe(201);
        players.push({ ...dev, botId: bot.body.botId, balanceBefore });
      }
      await h.app.services.host.settled();
      const match = (await h.call("GET", `/api/matches?botId=${players[0]!.botId}`)).body[0];
      const hands = await allHands(match.matchId);
      expect(hands).toHaveLength(match.handsPlayed);
      expect(match.handsPlayed).toBeGreaterThan(3);
      console.log(`reset-stacks, ${seats} seats: ${match.handsPlayed} hands, bankrolls ${match.players.map((p: any) => p.finalChips).join("/")}`);
      const bankroll = new Map(players.map((p) => [p.botId, BANKROLL]));
      for (const hand of hands) {
        // The number of players never changes mid-match, and each starts with the full stack.
        expect(hand.players.map((p) => p.startingStack)).toEqual(new Array(seats).fill(STACK));
        for (const p of hand.players) bankroll.set(p.botId, bankroll.get(p.botId)! + p.finalStack - p.startingStack);
      }
      expect(match.players).toHaveLength(seats);
      for (const p of match.players) {
        expect(p.finalChips).toBe(bankroll.get(p.botId));
        expect(p.finalChips).toBeGreaterThanOrEqual(0);
      }
      expect(match.players.reduce((sum: number, p: any) => sum + p.finalChips, 0)).toBe(BANKROLL * seats);
      // It ended at the hand limit, or before a hand some bankroll could not cover.
      const short = match.players.filter((p: any) => p.finalChips < STACK).length;
      expect(match.handsPlayed === 300 || short > 0).toBe(true);
      if (match.handsPlayed < 300) expect(short).toBeGreaterThan(0);
      for (const p of players) {
        const after = (await h.call("GET", "/api/me/balance", { token: p.token })).body.balance;
        expect(after).toBe(p.balanceBefore - BANKROLL + bankroll.get(p.botId)!);
      }
      await h.expectAuditClean();
    });
  }

  test("a leave during a reset-stacks match ends it after the hand: every bot cashed out its bankroll", async () => {
    const tableId = await resetTable(2, { maxHands: 100_000 });
    const devs = [await h.fundedDeveloper(), await h.fundedDeveloper()];
    const bots: string[] = [];
    for (const [i, dev] of devs.entries()) {
      const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name: `leaver-${i}`, strategy: "caller" } });
      bots.push(bot.body.botId);
    }
    // Two callers never fold: they trade a stack now and then, so the match runs until the leave ends it.
    for (const [i, dev] of devs.entries()) await h.call("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: bots[i] } });
    const left = await h.call("POST", `/api/tables/${tableId}/leave`, { token: devs[0]!.token, body: { botId: bots[0] } });
    expect(left.status).toBe(200);
    expect(left.body.status).toBe("leaving");
    await h.app.services.host.settled();
    const match = (await h.call("GET", `/api/matches?botId=${bots[0]}`)).body[0];
    expect(match.handsPlayed).toBeLessThan(100_000);
    // The leave ended it, not a short bankroll: both still cover a stack (blinds move 10 chips a hand, and 3,800 is far).
    for (const p of match.players) expect(p.finalChips).toBeGreaterThanOrEqual(STACK);
    expect(match.players).toHaveLength(2);
    expect(match.players.reduce((sum: number, p: any) => sum + p.finalChips, 0)).toBe(2 * BANKROLL);
    await h.expectAuditClean();
  });
});
