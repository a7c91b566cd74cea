import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { useHarness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("builtin_matches");

const STRATEGIES = ["random", "caller", "tight", "raiser"];

describe("matches of built-in bots: record, stats, ledger and audit agree", () => {
  for (const seats of [2, 3, 6, 10]) {
    test(`${seats} seats`, async () => {
      const owner = await h.fundedDeveloper();
      const table = await h.call("POST", "/api/tables", { token: owner.token, body: { maxPlayers: seats, maxHands: 60, buyIn: 500, smallBlind: 5, bigBlind: 10 } });
      expect(table.status).toBe(201);
      expect(table.body).toMatchObject({ status: "waiting", seats: [], config: { buyIn: 500, maxPlayers: seats, maxHands: 60 } });
      const players: Array<{ token: string; botId: string }> = [];
      for (let i = 0; i < seats; i++) {
        const dev = await h.fundedDeveloper();
        const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name: `b${i}`, strategy: STRATEGIES[i % 4] } });
        const joined = await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId: bot.body.botId } });
        expect(joined.status).toBe(201);
        expect(joined.body).toEqual({ seat: i, botId: bot.body.botId, chips: 500, leaving: false });
        players.push({ token: dev.token, botId: bot.body.botId });
      }
      await h.app.services.host.settled();

      const listed = await h.call("GET", `/api/matches?botId=${players[0].botId}`);
      expect(listed.body).toHaveLength(1);
      const match = listed.body[0];
      expect(Object.keys(match).sort()).toEqual(["config", "duration", "endedAt", "handsPlayed", "matchId", "players", "startedAt", "winners"]);
      expect(match.config).toEqual({ buyIn: 500, smallBlind: 5, bigBlind: 10, maxPlayers: seats });
      expect(match.players).toHaveLength(seats);
      expect(match.players.reduce((sum: number, p: any) => sum + p.finalChips, 0)).toBe(500 * seats);
      for (const p of match.players) expect(p.profit).toBe(p.finalChips - 500);
      const most = Math.max(...match.players.map((p: any) => p.finalChips));
      expect(match.winners).toEqual(match.players.filter((p: any) => p.finalChips === most).map((p: any) => ({ botId: p.botId, amount: p.profit })));
      const hands = await h.call("GET", `/api/matches/${match.matchId}/hands`);
      expect(hands.body.hands).toHaveLength(match.handsPlayed);
      const oneLeft = match.players.filter((p: any) => p.finalChips > 0).length === 1;
      expect(oneLeft || match.handsPlayed === 60).toBe(true);
      expect(await h.call("GET", `/api/matches/${match.matchId}`)).toMatchObject({ status: 200, body: match });

      let handsWonTotal = 0;
      for (const { token, botId } of players) {
        const record = match.players.find((p: any) => p.botId === botId);
        const stats = (await h.call("GET", `/api/stats/${botId}`)).body;
        expect(stats).toMatchObject({
          botId,
          matchesPlayed: 1,
          matchesWon: record.finalChips === most ? 1 : 0,
          totalBuyIns: 500,
          totalWinnings: record.finalChips,
          netChips: record.profit,
          biggestWin: Math.max(0, record.profit),
          biggestLoss: Math.min(0, record.profit),
          lastPlayed: match.endedAt,
        });
        expect(stats.handsPlayed).toBeGreaterThan(0);
        expect(stats.handsPlayed).toBeLessThanOrEqual(match.handsPlayed);
        expect(stats.handsWon).toBeLessThanOrEqual(stats.handsPlayed);
        handsWonTotal += stats.handsWon;
        const txs = (await h.call("GET", "/api/me/transactions", { token })).body;
        expect(txs.map((t: any) => [t.type, t.amount])).toEqual([["cashout", record.finalChips], ["buy_in", -500], ["faucet", 10_000]]);
        expect(txs[0]).toMatchObject({ botId, tableId: table.body.tableId, matchId: match.matchId, balanceAfter: 9_500 + record.finalChips });
        expect((await h.call("GET", "/api/me/balance", { token })).body.balance).toBe(9_500 + record.finalChips);
      }
      expect(handsWonTotal).toBeGreaterThanOrEqual(match.handsPlayed);
      const after = await h.call("GET", `/api/tables/${table.body.tableId}`);
      expect(after.body.status).toBe("finished");
      await h.expectAuditClean();
    });
  }

  test("a seeded table replays card for card", async () => {
    const runs: string[] = [];
    for (let run = 0; run < 2; run++) {
      const dev = await h.fundedDeveloper();
      const table = await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 3, maxHands: 20, seed: "replay-me" } });
      for (const strategy of ["caller", "tight", "raiser"]) {
        const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name: `${strategy}${run}`, strategy } });
        await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId: bot.body.botId } });
      }
      await h.app.services.host.settled();
      const [match] = (await h.call("GET", `/api/matches?limit=1`)).body;
      const hands = (await h.call("GET", `/api/matches/${match.matchId}/hands`, { token: dev.token })).body.hands;
      runs.push(JSON.stringify(hands.map((hand: any) => [hand.board, hand.events.filter((e: any) => e.type === "hole_cards")])));
    }
    expect(runs[0]).toBe(runs[1]);
  });

  test("a bot that never played: all zeros and lastPlayed null; unknown bot 404", async () => {
    const dev = await h.fundedDeveloper();
    const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "idle" } });
    expect((await h.call("GET", `/api/stats/${bot.body.botId}`)).body).toEqual({
      botId: bot.body.botId,
      matchesPlayed: 0,
      matchesWon: 0,
      handsPlayed: 0,
      handsWon: 0,
      totalBuyIns: 0,
      totalWinnings: 0,
      netChips: 0,
      biggestWin: 0,
      biggestLoss: 0,
      lastPlayed: null,
    });
    expect((await h.call("GET", "/api/stats/bot_nobody")).status).toBe(404);
  });
});
