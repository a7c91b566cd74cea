/** `cli eval`: many seeded duplicate matches, bb/100 with a 95 % interval, a verdict, a round robin; the same seeds give the same numbers in one thread or many. */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { resolve } from "node:path";
import { main } from "../../src/cli/index";
import { evalJobs, matchesForVerdict, normalCdf, pairings, summarize, verdict, Z_VERDICT, type RateSummary } from "../../src/cli/evaluation";

setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");

async function cli(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { env: { POKER_CONFIG: "/nonexistent/config.json" }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: ROOT, isTTY: false });
  return { code, stdout, stderr };
}

describe("statistics", () => {
  test("the interval of Σbb/Σhands by the delta method, worked by hand", () => {
    // Rate 0; residuals 10² + 10² = 200; stderr = sqrt(200 / (2·1)) / 100 hands = 0.1 bb/hand.
    const s = summarize([{ bigBlinds: 10, hands: 100 }, { bigBlinds: -10, hands: 100 }]);
    expect(s).toMatchObject({ matches: 2, hands: 200, bbPer100: 0, ci95: [-19.6, 19.6], matchesForVerdict: null });
    expect(s.confidenceAhead!).toBeCloseTo(0.5, 6);
    // Longer matches weigh more: 30 bb over 300 hands and -10 over 100 hands is +5 bb/100, not +0.
    expect(summarize([{ bigBlinds: 30, hands: 300 }, { bigBlinds: -10, hands: 100 }]).bbPer100).toBe(5);
    expect(summarize([{ bigBlinds: 3, hands: 50 }]).ci95).toBeNull();
    expect(normalCdf(1.96)).toBeCloseTo(0.975, 4);
    expect(normalCdf(-1.96)).toBeCloseTo(0.025, 4);
    expect(normalCdf(0)).toBeCloseTo(0.5, 6);
  });

  test("verdicts, pairings and the seat order of the jobs", () => {
    const summary = (bbPer100: number, ci95: [number, number], confidenceAhead: number): RateSummary => ({ matches: 9, hands: 900, bbPer100, ci95, confidenceAhead, matchesForVerdict: 7 });
    expect(verdict("mine", "tight", summary(5, [1, 9], 0.971))).toBe("mine is better than tight with 97.1 % confidence");
    expect(verdict("mine", "tight", summary(-5, [-9, -1], 0.01))).toBe("tight is better than mine with 99 % confidence");
    expect(verdict("mine", "tight", { ...summary(1, [-3, 5], 0.7), matchesForVerdict: 40 })).toBe(
      "no clear difference between mine and tight yet (mine ahead with 70 % confidence): play more matches (about 40 in all, if the rate and spread so far hold)",
    );
    expect(pairings(4)).toHaveLength(6);
    const jobs = evalJobs(["a", "b", "c"], pairings(3), 4, "s");
    expect(jobs).toHaveLength(12);
    // Every pairing plays the same seeds; odd matches swap the seats.
    expect(jobs.filter((j) => j.pair === 2).map((j) => [j.seed, j.seats.join(",")])).toEqual([["s:0", "b,c"], ["s:1", "c,b"], ["s:2", "b,c"], ["s:3", "c,b"]]);
  });
});

describe("adjusted figures and the matches a verdict needs", () => {
  test("the matches for a verdict: n · (1.6449 · stderr / |rate|)², worked by hand", () => {
    // Rate 10 / 400 = 0.025 bb/hand; residuals 7.5² + 6.5² + 3.5² + 4.5² = 131; stderr = sqrt(131 / (4·3)) / 100.
    const samples = [{ bigBlinds: 10, hands: 100 }, { bigBlinds: -4, hands: 100 }, { bigBlinds: 6, hands: 100 }, { bigBlinds: -2, hands: 100 }];
    const s = summarize(samples);
    const stderr = Math.sqrt(131 / 12) / 100;
    expect(s.bbPer100).toBe(2.5);
    expect(s.confidenceAhead!).toBeCloseTo(normalCdf(0.025 / stderr), 9);
    expect(s.confidenceAhead!).toBeLessThan(0.95);
    // 4 · (1.6449 · 0.033040 / 0.025)² = 18.89 → 19.
    expect(s.matchesForVerdict).toBe(Math.ceil(4 * ((Z_VERDICT * stderr) / 0.025) ** 2));
    expect(s.matchesForVerdict).toBe(19);
    expect(verdict("a", "b", s)).toEndWith("play more matches (about 19 in all, if the rate and spread so far hold)");
    // At exactly the verdict's margin the estimate is the matches played; a rate of 0 gives none.
    expect(matchesForVerdict(50, Z_VERDICT * 0.01, 0.01)).toBe(50);
    expect(matchesForVerdict(50, -2 * Z_VERDICT * 0.01, 0.01)).toBe(13);
    expect(matchesForVerdict(50, 0, 0.01)).toBeNull();
    expect(matchesForVerdict(1, 0.3, 0.01)).toBeNull();
  });

  test("raw and adjusted disagree: the luck of the cards hides a real difference, the adjusted samples show it", () => {
    // The same four matches: as dealt, one lost a big all-in it was a 4:1 favourite in; adjusted, that pot is credited by equity.
    const raw = [{ bigBlinds: 12, hands: 100 }, { bigBlinds: -60, hands: 100 }, { bigBlinds: 15, hands: 100 }, { bigBlinds: 11, hands: 100 }];
    const adjusted = [{ bigBlinds: 12, hands: 100 }, { bigBlinds: 12, hands: 100 }, { bigBlinds: 15, hands: 100 }, { bigBlinds: 11, hands: 100 }];
    const r = summarize(raw), a = summarize(adjusted);
    expect(r.ci95![0]).toBeLessThan(0);
    expect(a.ci95![0]).toBeGreaterThan(0);
    expect(verdict("mine", "tight", r)).toStartWith("no clear difference between mine and tight yet");
    expect(verdict("mine", "tight", a)).toMatch(/^mine is better than tight with 99(\.\d)? % confidence$/);
  });
});

describe("eval", () => {
  test("a clear difference is called with its confidence; the same seed gives the same figures in one thread and in two", async () => {
    const args = ["eval", "--players", "tight,caller", "--matches", "40", "--hands", "60", "--seed", "eval-test", "--json"];
    const one = await cli([...args, "--parallel", "1"]);
    const two = await cli([...args, "--parallel", "2"]);
    expect(one.code).toBe(0);
    const [a, b] = [JSON.parse(one.stdout), JSON.parse(two.stdout)];
    expect(a.parallel).toBe(1);
    expect(b.parallel).toBe(2);
    expect(b.pairings).toEqual(a.pairings);
    const pairing = a.pairings[0];
    expect(pairing).toMatchObject({ a: "tight", b: "caller", matches: 40 });
    expect(pairing.hands).toBeGreaterThan(40);
    expect(pairing.ci95[0]).toBeLessThan(pairing.bbPer100);
    expect(pairing.ci95[1]).toBeGreaterThan(pairing.bbPer100);
    // tight folds its junk and bets its value; a calling station pays it off.
    expect(pairing.ci95[0]).toBeGreaterThan(0);
    expect(pairing.verdict).toMatch(/^tight is better than caller with 9\d(\.\d)? % confidence$/);
    // The adjusted figure beside the raw one: same matches and hands, its own interval; the verdict is read off it.
    expect(pairing.adjusted).toMatchObject({ matches: 40, hands: pairing.hands });
    expect(pairing.adjusted.ci95[0]).toBeLessThan(pairing.adjusted.bbPer100);
    expect(pairing.adjusted.ci95[1]).toBeGreaterThan(pairing.adjusted.bbPer100);
    expect(pairing.adjusted.bbPer100).not.toBe(pairing.bbPer100);
    expect(pairing.verdict).toBe(verdict("tight", "caller", pairing.adjusted));
    // A different seed base deals different cards.
    const other = JSON.parse((await cli(["eval", "--players", "tight,caller", "--matches", "40", "--hands", "60", "--seed", "another", "--json"])).stdout);
    expect(other.pairings[0].hands === pairing.hands && other.pairings[0].bbPer100 === pairing.bbPer100).toBe(false);
  });

  test("the readable report, a bot file, and the round robin's table and ranking", async () => {
    const report = await cli(["eval", "--players", "./examples/starter-bot.ts,random", "--matches", "6", "--hands", "40", "--seed", "r"]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^evaluation · seeds r:0…5 · 6 duplicate matches per pairing, up to 40 hands · \d+ hands in [\d.]+ s on \d threads?$/m);
    const rate = String.raw`[+-]\d+\.\d bb/100 \[[+-]\d+\.\d, [+-]\d+\.\d\]`;
    expect(report.stdout).toMatch(new RegExp(String.raw`^ {2}starter-bot vs random: adjusted ${rate} · raw ${rate} · over \d+ hands$`, "m"));
    expect(report.stdout).toContain("replay: bun run cli -- eval --players ./examples/starter-bot.ts,random --matches 6 --hands 40 --seed r");

    const rr = await cli(["eval", "--round-robin", "--players", "tight,caller,raiser", "--matches", "6", "--hands", "40", "--seed", "rr", "--json"]);
    const result = JSON.parse(rr.stdout);
    expect(result.pairings.map((p: { a: string; b: string }) => `${p.a}-${p.b}`)).toEqual(["tight-caller", "tight-raiser", "caller-raiser"]);
    expect(result.ranking).toHaveLength(3);
    // Heads-up is zero-sum: over the whole round robin the bots' big blinds add up to nothing.
    const bigBlinds = result.ranking.reduce((sum: number, r: { bbPer100: number; hands: number }) => sum + (r.bbPer100 * r.hands) / 100, 0);
    expect(Math.abs(bigBlinds)).toBeLessThan(0.5);
    const table = await cli(["eval", "--round-robin", "--players", "tight,caller,raiser", "--matches", "6", "--hands", "40", "--seed", "rr"]);
    expect(table.stdout).toContain("adjusted bb/100 of the row's bot against the column's:");
    expect(table.stdout).toMatch(/^ {2}1\. \w+ +[+-]\d+\.\d bb\/100 \[.*\] · raw [+-]\d+\.\d bb\/100/m);
    // The ranking follows the adjusted figures.
    const adjustedRates = result.ranking.map((r: { adjusted: { bbPer100: number } }) => r.adjusted.bbPer100);
    expect(adjustedRates).toEqual([...adjustedRates].sort((x, y) => y - x));
  });

  test("mistakes: three players without --round-robin, an unknown player, no players", async () => {
    const three = await cli(["eval", "--players", "tight,caller,raiser"]);
    expect(three.code).toBe(2);
    expect(three.stderr).toContain("use --round-robin");
    const unknown = await cli(["eval", "--players", "tight,nobody"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown player "nobody"');
    expect((await cli(["eval"])).code).toBe(2);
  });
});
