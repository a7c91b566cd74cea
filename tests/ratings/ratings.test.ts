import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { asc, eq, sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import type { StoredHand } from "../../src/modules/match-host/hand-history";
import { adjustedHandResults } from "../../src/modules/ratings/luck";
import { rebuildRatings, recordedMatch } from "../../src/modules/ratings/store";
import { applyMatch, noHands, priorRating, winRate } from "../../src/modules/ratings/skill";
import { useHarness } from "../support/app";
import { developerWithBot as botOf, playTable as tableOf, type PlayerBot } from "../support/rated-tables";

setDefaultTimeout(90_000);

const h = useHarness("ratings");
const developerWithBot = (name: string, strategy: string) => botOf(h.call, name, strategy);
const playTable = (players: PlayerBot[], body: Record<string, unknown>) => tableOf(h.call, players, body);

/** A match's hand histories as stored, each with the deck its secret deals. */
async function storedHands(matchId: string): Promise<Array<{ hand: StoredHand; deck: number[] | null }>> {
  const { hands, decks } = await recordedMatch(h.database.db, matchId);
  return hands.map((hand, i) => ({ hand, deck: decks[i] }));
}

/** mean ± 1.96·sd/√n, × 100: the interval the ratings show, computed here from the per-hand results. */
function expectRate(xs: number[], rate: number, ci: [number, number]) {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  expect(rate).toBeCloseTo(mean * 100, 1);
  expect(ci[0]).toBeCloseTo((mean - (1.96 * sd) / Math.sqrt(xs.length)) * 100, 1);
  expect(ci[1]).toBeCloseTo((mean + (1.96 * sd) / Math.sqrt(xs.length)) * 100, 1);
}

describe("OpenSkill ratings with uncertainty, win rates with confidence intervals", () => {
  let players: Array<{ token: string; botId: string }>;

  beforeAll(async () => {
    players = [
      await developerWithBot("raiser", "raiser"),
      await developerWithBot("caller", "caller"),
      await developerWithBot("tight", "tight"),
      await developerWithBot("random", "random"),
      await developerWithBot("raiser2", "raiser"),
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
    // Two raisers of different developers: all in preflop, one hand a match.
    for (let round = 0; round < 2; round++) {
      await playTable([players[0], players[4]], { maxHands: 20 });
      await h.app.services.host.settled();
    }
    // Applied off the hot path, a moment after each match is recorded.
    await h.app.services.ratingsApplier.settled();
  });

  test("the list: every rated bot, rating = mu − 3·sigma, sorted by rating then botId, counts and win rates from the hands", async () => {
    const list = await h.call("GET", "/api/ratings?limit=100");
    expect(list.status).toBe(200);
    const ours = list.body.filter((r: any) => players.some((p) => p.botId === r.botId));
    expect(ours).toHaveLength(5);
    for (let i = 1; i < list.body.length; i++) {
      const [a, b] = [list.body[i - 1], list.body[i]];
      expect(a.rating > b.rating || (a.rating === b.rating && a.botId < b.botId)).toBe(true);
    }
    for (const entry of ours) {
      expect(entry.estimator).toBe("aivat-2");
      expect(entry.rating).toBeCloseTo(entry.mu - 3 * entry.sigma, 10);
      expect(entry.sigma).toBeLessThan(25 / 3);
      // Independent count from the public records: matches and per-hand results in big blinds.
      const matches = (await h.call("GET", `/api/matches?botId=${entry.botId}&limit=200`)).body;
      expect(entry.matchesPlayed).toBe(matches.length);
      const xs: number[] = [];
      const adjusted: number[] = [];
      for (const match of [...matches].reverse()) {
        const hands = (await h.call("GET", `/api/matches/${match.matchId}/hands`)).body.hands;
        for (const hand of hands) {
          const me = hand.players.find((p: any) => p.botId === entry.botId);
          if (me) xs.push((me.finalStack - me.startingStack) / hand.bigBlind);
        }
        for (const { hand, deck } of await storedHands(match.matchId)) {
          // Every match here is dealt from a committed secret: the deck is known, the estimator is aivat-2.
          expect(deck).not.toBeNull();
          const mine = adjustedHandResults(hand, deck).find((r) => r.botId === entry.botId);
          if (mine) adjusted.push(mine.estimatedBb);
        }
      }
      expect(entry.handsPlayed).toBe(xs.length);
      expect(adjusted).toHaveLength(xs.length);
      expectRate(xs, entry.bbPer100, entry.bbPer100Ci95);
      expectRate(adjusted, entry.bbPer100Adjusted, entry.bbPer100AdjustedCi95);
    }
    // The raisers went all in before the river: their adjusted figures are not the chips'.
    const raisers = ours.filter((r: any) => r.botId === players[0].botId || r.botId === players[4].botId);
    expect(raisers).toHaveLength(2);
    for (const r of raisers) {
      expect(r.bbPer100Adjusted).not.toBe(r.bbPer100);
      expect(r.bbPer100AdjustedCi95).not.toEqual(r.bbPer100Ci95);
    }
    expect((await h.call("GET", `/api/ratings/${ours[0].botId}`)).body).toEqual(ours[0]);
    const printed = await h.call("GET", "/api/ratings?limit=1");
    expect(printed.body[0].botId).toBe(list.body[0].botId);
    const page = await h.call("GET", "/api/ratings?limit=2&offset=1");
    expect(page.body).toEqual(list.body.slice(1, 3));
  });

  test("recomputing from the records gives exactly the applied numbers, adjusted sums included (bit for bit)", async () => {
    const stored = () => queryRows<Record<string, unknown>>(h.database.db, sql`select * from bot_ratings order by bot_id`);
    const before = (await h.call("GET", "/api/ratings?limit=500")).body;
    const rowsBefore = await stored();
    // Adjusted ≠ raw somewhere, so the comparison covers the adjusted sums for real.
    expect(rowsBefore.some((row: any) => row.sum_adjusted_bb !== row.sum_bb)).toBe(true);
    const rebuilt = await rebuildRatings(h.database.db);
    expect(rebuilt.bots).toBe(before.length);
    expect(rowsBefore).toHaveLength(before.length);
    expect(await stored()).toEqual(rowsBefore);
    expect((await h.call("GET", "/api/ratings?limit=500")).body).toEqual(before);
    // Records rated by the previous estimator (as migration 0020 marks them): the rebuild rates every match again with aivat-2.
    await h.database.db.execute(sql`update matches set rating_estimator = 'chance-1' where rated_seq is not null`);
    await h.database.db.execute(sql`update bot_ratings set estimator = 'chance-1'`);
    await rebuildRatings(h.database.db);
    expect(await stored()).toEqual(rowsBefore);
    const estimators = await queryRows<{ estimator: string | null; n: number }>(h.database.db, sql`select rating_estimator as estimator, count(*)::int as n from matches where rated_seq is not null group by 1`);
    expect(estimators).toEqual([{ estimator: "aivat-2", n: expect.any(Number) }]);
    expect(estimators[0].n).toBeGreaterThan(5);
  });

  test("each rated match's rating is kept per bot (the bot page's history); the rebuild fills it for the past, the same rows", async () => {
    const history = () => queryRows<Record<string, unknown>>(h.database.db, sql`select * from bot_rating_history order by rated_seq, bot_id`);
    const applied = await history();
    const rated = await queryRows<{ n: number }>(h.database.db, sql`select count(*)::int as n from match_players mp join matches m on m.id = mp.match_id where m.rated_seq is not null`);
    expect(applied.length).toBe(rated[0].n);
    expect(applied.length).toBeGreaterThan(0);
    // A bot's last history row is its current rating.
    const last = applied.filter((row: any) => row.bot_id === applied[applied.length - 1].bot_id).pop() as any;
    const current = (await h.call("GET", `/api/ratings/${last.bot_id}`)).body;
    expect([last.mu, last.sigma]).toEqual([current.mu, current.sigma]);
    // As after migration 0019 on a database with past matches: empty, then filled by the rebuild.
    await h.database.db.execute(sql`delete from bot_rating_history`);
    await rebuildRatings(h.database.db);
    expect(await history()).toEqual(applied);
  });

  test("seeded and self-play matches are not rated; a bot with no rated match has the prior; unknown bot 404", async () => {
    const solo = await h.fundedDeveloper();
    const mine: Array<{ token: string; botId: string }> = [];
    for (const name of ["self1", "self2"]) mine.push({ token: solo.token, botId: (await h.call("POST", "/api/bots", { token: solo.token, body: { name, strategy: "raiser" } })).body.botId });
    await playTable(mine, { maxHands: 20 });
    await h.app.services.host.settled();
    await playTable(mine, { maxHands: 20, seed: "practice" });
    await h.app.services.host.settled();
    await h.app.services.ratingsApplier.settled();
    expect((await h.call("GET", `/api/matches?botId=${mine[0].botId}`)).body).toHaveLength(2);
    const prior = await h.call("GET", `/api/ratings/${mine[0].botId}`);
    expect(prior.body).toEqual({ botId: mine[0].botId, mu: 25, sigma: 25 / 3, rating: 0, matchesPlayed: 0, handsPlayed: 0, bbPer100: 0, bbPer100Ci95: null, bbPer100Adjusted: 0, bbPer100AdjustedCi95: null, estimator: "aivat-2" });
    expect((await h.call("GET", "/api/ratings?limit=500")).body.some((r: any) => r.botId === mine[0].botId)).toBe(false);
    expect((await h.call("GET", "/api/ratings/bot_nobody")).status).toBe(404);
    const bad = await h.call("GET", "/api/ratings?limit=0");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    await h.expectAuditClean();
  });

  test("the rating rule: the best adjusted result ranks first, not the most chips; equal results share a rank", () => {
    const prior = new Map<string, ReturnType<typeof priorRating>>();
    // a won the chips (+50 bb) but was behind when the money went in: −30 bb adjusted; b the reverse.
    const hands = (sumBb: number, sumAdjustedBb: number) => ({ ...noHands(), count: 10, sumBb, sumBbSquared: sumBb ** 2, sumAdjustedBb, sumAdjustedBbSquared: sumAdjustedBb ** 2 });
    const [chipWinner, adjustedWinner] = applyMatch(prior, [
      { botId: "a", hands: hands(50, -30) },
      { botId: "b", hands: hands(-50, 30) },
    ], "aivat-1");
    expect(chipWinner.mu).toBeLessThan(25);
    expect(adjustedWinner.mu).toBeGreaterThan(25);
    // Both sums are kept: the raw one as the chips say, the adjusted one for bbPer100Adjusted.
    expect([chipWinner.sumBb, chipWinner.sumAdjustedBb, chipWinner.handsPlayed]).toEqual([50, -30, 10]);
    const [x, y, z] = applyMatch(prior, [
      { botId: "x", hands: hands(0, 20) },
      { botId: "y", hands: hands(10, 20) },
      { botId: "z", hands: hands(-10, -40) },
    ], "aivat-1");
    expect(x.mu).toBe(y.mu);
    expect(z.mu).toBeLessThan(x.mu);
    expect(winRate({ handsPlayed: 1, sumBb: 2, sumBbSquared: 4, sumAdjustedBb: 1.5, sumAdjustedBbSquared: 2.25, estimator: "aivat-1" })).toEqual({
      bbPer100: 200,
      bbPer100Ci95: null,
      bbPer100Adjusted: 150,
      bbPer100AdjustedCi95: null,
      estimator: "aivat-1",
    });
    // The estimator of a bot's adjusted sums: one name while every match had it, else mixed.
    const [later] = applyMatch(new Map([["a", chipWinner]]), [{ botId: "a", hands: hands(1, 1) }, { botId: "q", hands: hands(-1, -1) }], "chance-1");
    expect([chipWinner.estimator, later.estimator]).toEqual(["aivat-1", "mixed"]);
  });
});
