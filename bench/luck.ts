/**
 * bench:luck (issue 26): how much of a win rate's uncertainty the all-in adjustment removes.
 * Seeded heads-up matches of built-ins (100 hands, 100 big blinds deep, each strategy on each seat
 * in turn) played in-process with the engine; from each hand's history: bb/100 raw and adjusted,
 * and chance-corrected (turn and river luck taken out too), with the 95 % interval the ratings use (hands as samples, skill.ts perHundredHands) and the one `cli eval`
 * uses (matches as samples, evaluation.ts summarize); the bias checks; the matches an eval needs for
 * a 95 % verdict; what the adjustment costs per hand. Figures only, no assertions (tests hold those).
 *
 * LUCK_MATCHES (default 2000) per pairing; LUCK_SEED varies the seeds; LUCK_PAIRINGS picks the pairings.
 */
import { summarize, type MatchSample, type RateSummary } from "../src/cli/evaluation";
import { LUCK_WEIGHT } from "../src/poker/chance-correction";
import type { BuiltInStrategy } from "../src/modules/bots/model";
import { perHundredHands } from "../src/modules/ratings/skill";
import { decisionView, STRATEGIES } from "../src/modules/bots/built-ins";
import { allInAdjustedResults, allInSpot, finishedHandRecord } from "../src/poker/all-in-equity";
import { streetLuck } from "../src/poker/chance-correction";
import { applyActionInPlace, legalActions, startHand } from "../src/poker/hand";
import { matchStatus, nextButton, seatsInPlay, stacksAfterHand } from "../src/poker/match";
import { seededRng, shuffleDeck } from "@poker-bots/core/rng";

const MATCHES = Number(process.env.LUCK_MATCHES ?? 2000);
const SEED = process.env.LUCK_SEED ?? "bench:luck";
const HANDS = 100, BUY_IN = 1000, SMALL_BLIND = 5, BIG_BLIND = 10;

/** Per-hand sums of the first player's results in big blinds (skill.ts's HandResults, raw and adjusted). */
interface Sums {
  count: number;
  sumBb: number;
  sumBbSquared: number;
}

interface PairingRun {
  raw: MatchSample[];
  adjusted: MatchSample[];
  corrected: MatchSample[];
  rawHands: Sums;
  adjustedHands: Sums;
  correctedHands: Sums;
  allInRunouts: number;
  /** Time in the engine and strategies, and in the adjustment (both µs, summed over hands). */
  playMicros: number;
  adjustMicros: number;
  slowestAdjustMicros: number;
  luckMicros: number;
}

const noSums = (): Sums => ({ count: 0, sumBb: 0, sumBbSquared: 0 });
const addTo = (s: Sums, x: number) => ((s.count += 1), (s.sumBb += x), (s.sumBbSquared += x * x));

/** One match: `first` sits at seat `firstSeat`; results are the first player's. */
function playMatch(first: BuiltInStrategy, second: BuiltInStrategy, firstSeat: number, seed: string, run: PairingRun): void {
  const rng = seededRng(seed);
  const strategyAt = firstSeat === 0 ? [STRATEGIES[first], STRATEGIES[second]] : [STRATEGIES[second], STRATEGIES[first]];
  let stacks = [BUY_IN, BUY_IN];
  let button: number | null = null;
  const sample = { raw: 0, adjusted: 0, corrected: 0, hands: 0 };
  for (let played = 0; !matchStatus(stacks, played, HANDS).over; played++) {
    button = nextButton(stacks, button);
    const started = performance.now();
    const state = startHand({ seats: seatsInPlay(stacks), buttonSeatIndex: button, smallBlind: SMALL_BLIND, bigBlind: BIG_BLIND, deck: shuffleDeck(rng, 12) });
    while (!state.finished) {
      const legal = legalActions(state)!;
      const action = strategyAt[state.seats[state.actor]](decisionView(state, legal), rng);
      if (!applyActionInPlace(state, action).ok) throw new Error(`${first} vs ${second}: illegal ${JSON.stringify(action)}`);
    }
    const adjusting = performance.now();
    const record = finishedHandRecord(state);
    const results = allInAdjustedResults(record);
    const done = performance.now();
    const luck = streetLuck(record);
    run.luckMicros += (performance.now() - done) * 1000;
    run.playMicros += (adjusting - started) * 1000;
    run.adjustMicros += (done - adjusting) * 1000;
    run.slowestAdjustMicros = Math.max(run.slowestAdjustMicros, (done - adjusting) * 1000);
    if (allInSpot(finishedHandRecord(state)) !== null) run.allInRunouts++;
    const p = state.seats.indexOf(firstSeat);
    const mine = results[p], corrected = mine.adjusted - luck[p];
    addTo(run.rawHands, mine.raw / BIG_BLIND);
    addTo(run.adjustedHands, mine.adjusted / BIG_BLIND);
    addTo(run.correctedHands, corrected / BIG_BLIND);
    sample.raw += mine.raw / BIG_BLIND;
    sample.adjusted += mine.adjusted / BIG_BLIND;
    sample.corrected += corrected / BIG_BLIND;
    sample.hands++;
    stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
  }
  run.raw.push({ bigBlinds: sample.raw, hands: sample.hands });
  run.adjusted.push({ bigBlinds: sample.adjusted, hands: sample.hands });
  run.corrected.push({ bigBlinds: sample.corrected, hands: sample.hands });
}

function playPairing(first: BuiltInStrategy, second: BuiltInStrategy, matches: number): PairingRun {
  const run: PairingRun = {
    raw: [], adjusted: [], corrected: [], rawHands: noSums(), adjustedHands: noSums(), correctedHands: noSums(),
    allInRunouts: 0, playMicros: 0, adjustMicros: 0, slowestAdjustMicros: 0, luckMicros: 0,
  };
  // Seat order alternates by match, as `cli eval` does, so neither strategy keeps a seat's edge.
  for (let m = 0; m < matches; m++) playMatch(first, second, m % 2, `${SEED}:${first}-${second}:${m}`, run);
  return run;
}

/** The matches `cli eval` estimates it needs for a 95 % verdict (evaluation.ts matchesForVerdict): n · (1.6449 · stderr / |rate|)². */
const matchesForVerdict = (s: RateSummary) => s.matchesForVerdict ?? Infinity;

const width = (ci: [number, number] | null) => (ci === null ? NaN : ci[1] - ci[0]);
const interval = (ci: [number, number] | null) => (ci === null ? "n/a" : `[${ci[0].toFixed(2)}, ${ci[1].toFixed(2)}]`);
const inside = (x: number, ci: [number, number] | null) => ci !== null && x >= ci[0] && x <= ci[1];
const perHand = (s: Sums) => perHundredHands(s.count, s.sumBb, s.sumBbSquared);

const ratio = (a: [number, number] | null, b: [number, number] | null) => (width(a) / width(b)).toFixed(3);

function report(first: BuiltInStrategy, second: BuiltInStrategy, run: PairingRun, selfPlay: boolean) {
  const raw = summarize(run.raw), adjusted = summarize(run.adjusted), corrected = summarize(run.corrected);
  const rawHands = perHand(run.rawHands), adjustedHands = perHand(run.adjustedHands), correctedHands = perHand(run.correctedHands);
  const hands = run.rawHands.count;
  const line = (name: string, s: { bbPer100: number }, ci: [number, number] | null, byMatch: [number, number] | null, byHand: [number, number] | null) =>
    console.log(`  ${name.padEnd(16)} ${s.bbPer100.toFixed(2).padStart(8)} by match ${interval(byMatch).padEnd(18)} by hand ${interval(byHand).padEnd(18)}${ci === null ? "" : ` width / raw: by match ${ratio(byMatch, raw.ci95)}, by hand ${ratio(byHand, rawHands.bbPer100Ci95)}`}`);
  console.log(`\n${first} vs ${second}: ${run.raw.length} matches, ${hands} hands, ${run.allInRunouts} all-in runouts adjusted (${((100 * run.allInRunouts) / hands).toFixed(2)} % of hands); ${first}'s bb/100 and 95 % intervals:`);
  line("raw", raw, null, raw.ci95, rawHands.bbPer100Ci95);
  line("all-in adjusted", adjusted, adjusted.ci95, adjusted.ci95, adjustedHands.bbPer100Ci95);
  line("chance corrected", corrected, corrected.ci95, corrected.ci95, correctedHands.bbPer100Ci95);
  if (selfPlay) {
    console.log(`  self-play: 0 inside the interval (by match): raw ${inside(0, raw.ci95) ? "yes" : "NO"}, adjusted ${inside(0, adjusted.ci95) ? "yes" : "NO"}, corrected ${inside(0, corrected.ci95) ? "yes" : "NO"}`);
  } else {
    console.log(`  no bias: inside the raw 95 % interval: adjusted mean ${inside(adjusted.bbPer100, raw.ci95) ? "yes" : "NO"}, corrected mean ${inside(corrected.bbPer100, raw.ci95) ? "yes" : "NO"}`);
    console.log(`  matches for a 95 % eval verdict: raw ${matchesForVerdict(raw)}, adjusted ${matchesForVerdict(adjusted)}, corrected ${matchesForVerdict(corrected)}`);
  }
  console.log(`  cost: play ${(run.playMicros / hands).toFixed(2)} µs/hand; all-in adjustment ${(run.adjustMicros / hands).toFixed(2)} µs/hand on average (${(run.adjustMicros / Math.max(1, run.allInRunouts)).toFixed(0)} µs per adjusted hand, slowest ${(run.slowestAdjustMicros / 1000).toFixed(1)} ms); turn/river luck ${(run.luckMicros / hands).toFixed(2)} µs/hand`);
  return {
    pairing: `${first}-${second}`, matches: run.raw.length, hands, allInRunouts: run.allInRunouts,
    raw: raw.bbPer100, rawCi: raw.ci95, adjusted: adjusted.bbPer100, adjustedCi: adjusted.ci95, corrected: corrected.bbPer100, correctedCi: corrected.ci95,
    widthRatioByMatch: { adjusted: Number(ratio(adjusted.ci95, raw.ci95)), corrected: Number(ratio(corrected.ci95, raw.ci95)) },
    widthRatioByHand: { adjusted: Number(ratio(adjustedHands.bbPer100Ci95, rawHands.bbPer100Ci95)), corrected: Number(ratio(correctedHands.bbPer100Ci95, rawHands.bbPer100Ci95)) },
    matchesForVerdict: selfPlay ? null : { raw: matchesForVerdict(raw), adjusted: matchesForVerdict(adjusted), corrected: matchesForVerdict(corrected) },
    micros: { play: Number((run.playMicros / hands).toFixed(2)), adjust: Number((run.adjustMicros / hands).toFixed(2)), luck: Number((run.luckMicros / hands).toFixed(2)) },
  };
}

const DEFAULT_PAIRINGS: Array<[BuiltInStrategy, BuiltInStrategy, boolean]> = [
  ["tight", "caller", false], // the issue's pairing: a known difference
  ["tight", "raiser", false], // all in preflop whenever tight holds a premium hand
  ["tight", "tight", true],
  ["raiser", "raiser", true], // every hand all in preflop
];
/** LUCK_PAIRINGS=caller-random,tight-tight picks others (a strategy against itself is self-play). */
const PAIRINGS: Array<[BuiltInStrategy, BuiltInStrategy, boolean]> = process.env.LUCK_PAIRINGS
  ? process.env.LUCK_PAIRINGS.split(",").map((pair) => {
      const [a, b] = pair.trim().split("-") as [BuiltInStrategy, BuiltInStrategy];
      if (!STRATEGIES[a] || !STRATEGIES[b]) throw new Error(`LUCK_PAIRINGS: unknown strategy in ${pair} (${Object.keys(STRATEGIES).join(", ")})`);
      return [a, b, a === b];
    })
  : DEFAULT_PAIRINGS;

const began = performance.now();
console.log(`bench:luck  ${MATCHES} heads-up matches per pairing, up to ${HANDS} hands, ${BUY_IN / BIG_BLIND} big blinds deep, seeds ${SEED}:<pairing>:<i>; turn/river luck weights ${LUCK_WEIGHT.turn} / ${LUCK_WEIGHT.river}`);
const figures = PAIRINGS.map(([a, b, self]) => report(a, b, playPairing(a, b, MATCHES), self));
console.log(`\n(${((performance.now() - began) / 1000).toFixed(1)} s)`);
console.log(JSON.stringify(figures));
