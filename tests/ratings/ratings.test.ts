import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rebuildRatings } from "../../src/modules/ratings/store";
import { applyMatch, priorRating, winRate } from "../../src/modules/ratings/skill";
import { useHarness } from "../support/app";

setDefaultTimeout(90_000);

const h = useHarness("ratings");

async function developerWithBot(name: string, strategy: string) {
  const dev = await h.fundedDeveloper();
  const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name, strategy } });
  return { ...dev, botId: bot.body.botId as string };
}

async function playTable(players: Array<{ token: string; botId: string }>, body: Record<string, unknown>) {
  const owner = players[0];
  const table = await h.call("POST", "/api/tables", { token: owner.token, body: { maxPlayers: players.length, buyIn: 500, ...body } });
  expect(table.status).toBe(201);
  for (const p of players) expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
  return table.body.tableId as string;
}

describe("OpenSkill ratings with uncertainty, win rates with confidence intervals", () => {
  let players: Array<{ token: string; botId: string }>;

  beforeAll(async () => {
    players = [
      await developerWithBot("raiser", "raiser"),
      await developerWithBot("caller", "caller"),
      await developerWithBot("tight", "tight"),
      await developerWithBot("random", "random"),
    ];
    // Heads-up pairs (two at once) and a three-handed table.
    await playTable([players[0], players[1]], { maxHands: 40 });
    await playTable([players[2], players[3]], { maxHands: 40 });
    await h.app.services.host.settled();
    await playTable([players[0], players[2], players[3]], { maxHands: 40 });
    await h.app.services.host.settled();
    for (let round = 0; round < 3; round++) {
      await playTable([players[1], players[2]], { maxHands: 30 });
      await playTable([players[3], players[0]], { maxHands: 30 });
      await h.app.services.host.settled();
    }
  });

  test("the list: every rated bot, rating = mu − 3·sigma, sorted by rating then botId, counts and win rates from the hands", async () => {
    const list = await h.call("GET", "/api/ratings?limit=100");
    expect(list.status).toBe(200);
    const ours = list.body.filter((r: any) => players.some((p) => p.botId === r.botId));
    expect(ours).toHaveLength(4);
    for (let i = 1; i < list.body.length; i++) {
      const [a, b] = [list.body[i - 1], list.body[i]];
      expect(a.rating > b.rating || (a.rating === b.rating && a.botId < b.botId)).toBe(true);
    }
    for (const entry of ours) {
      expect(entry.rating).toBeCloseTo(entry.mu - 3 * entry.sigma, 10);
      expect(entry.sigma).toBeLessThan(25 / 3);
      // Independent count from the public records: matches and per-hand results in big blinds.
      const matches = (await h.call("GET", `/api/matches?botId=${entry.botId}&limit=200`)).body;
      expect(entry.matchesPlayed).toBe(matches.length);
      const xs: number[] = [];
      for (const match of [...matches].reverse()) {
        const hands = (await h.call("GET", `/api/matches/${match.matchId}/hands`)).body.hands;
        for (const hand of hands) {
          const me = hand.players.find((p: any) => p.botId === entry.botId);
          if (me) xs.push((me.finalStack - me.startingStack) / hand.bigBlind);
        }
      }
      expect(entry.handsPlayed).toBe(xs.length);
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
      expect(entry.bbPer100).toBeCloseTo(mean * 100, 1);
      expect(entry.bbPer100Ci95[0]).toBeCloseTo((mean - (1.96 * sd) / Math.sqrt(xs.length)) * 100, 1);
      expect(entry.bbPer100Ci95[1]).toBeCloseTo((mean + (1.96 * sd) / Math.sqrt(xs.length)) * 100, 1);
    }
    expect((await h.call("GET", `/api/ratings/${ours[0].botId}`)).body).toEqual(ours[0]);
    const printed = await h.call("GET", "/api/ratings?limit=1");
    expect(printed.body[0].botId).toBe(list.body[0].botId);
    const page = await h.call("GET", "/api/ratings?limit=2&offset=1");
    expect(page.body).toEqual(list.body.slice(1, 3));
  });

  test("recomputing from the records gives exactly the incremental numbers", async () => {
    const before = (await h.call("GET", "/api/ratings?limit=500")).body;
    const rebuilt = await rebuildRatings(h.database.db);
    expect(rebuilt.bots).toBe(before.length);
    expect((await h.call("GET", "/api/ratings?limit=500")).body).toEqual(before);
  });

  test("seeded and self-play matches are not rated; a bot with no rated match has the prior; unknown bot 404", async () => {
    const solo = await h.fundedDeveloper();
    const mine: Array<{ token: string; botId: string }> = [];
    for (const name of ["self1", "self2"]) mine.push({ token: solo.token, botId: (await h.call("POST", "/api/bots", { token: solo.token, body: { name, strategy: "raiser" } })).body.botId });
    await playTable(mine, { maxHands: 20 });
    await h.app.services.host.settled();
    await playTable(mine, { maxHands: 20, seed: "practice" });
    await h.app.services.host.settled();
    expect((await h.call("GET", `/api/matches?botId=${mine[0].botId}`)).body).toHaveLength(2);
    const prior = await h.call("GET", `/api/ratings/${mine[0].botId}`);
    expect(prior.body).toEqual({ botId: mine[0].botId, mu: 25, sigma: 25 / 3, rating: 0, matchesPlayed: 0, handsPlayed: 0, bbPer100: 0, bbPer100Ci95: null });
    expect((await h.call("GET", "/api/ratings?limit=500")).body.some((r: any) => r.botId === mine[0].botId)).toBe(false);
    expect((await h.call("GET", "/api/ratings/bot_nobody")).status).toBe(404);
    const bad = await h.call("GET", "/api/ratings?limit=0");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    await h.expectAuditClean();
  });

  test("the rating rule: most chips ranks first, equal chips share a rank", () => {
    const prior = new Map<string, ReturnType<typeof priorRating>>();
    const hands = { count: 1, sumBb: 0, sumBbSquared: 0 };
    const [winner, loser] = applyMatch(prior, [
      { botId: "a", finalChips: 1500, hands },
      { botId: "b", finalChips: 500, hands },
    ]);
    expect(winner.mu).toBeGreaterThan(25);
    expect(loser.mu).toBeLessThan(25);
    const [x, y, z] = applyMatch(prior, [
      { botId: "x", finalChips: 700, hands },
      { botId: "y", finalChips: 700, hands },
      { botId: "z", finalChips: 100, hands },
    ]);
    expect(x.mu).toBeCloseTo(y.mu, 12);
    expect(z.mu).toBeLessThan(x.mu);
    expect(winRate({ handsPlayed: 1, sumBb: 2, sumBbSquared: 4 })).toEqual({ bbPer100: 200, bbPer100Ci95: null });
  });
});
