/**
 * bench:luck's bookkeeping (bench/luck.ts): one pairing's per-match sums of each estimator's figure
 * for its first player, from each hand's results as the ratings compute them (luck.ts
 * `adjustedHandResults`), and the report of widths, bias checks and cost.
 */
import { categoryIndex, evaluateCards } from "@poker-bots/core/evaluator";
import { summarize, type MatchSample, type RateSummary } from "../src/cli/evaluation";
import { startingHandScore } from "../src/modules/bots/built-ins";
import { adjustedHandResults, type BotHandResult } from "../src/modules/ratings/luck";
import { baselineTerms, type ReferencePolicy } from "../src/poker/baseline";
import { storedHandOf, type StoredHand } from "../src/poker/hand-record";
import { seededRng, shuffleDeck, uniformInt, type Rng } from "@poker-bots/core/rng";
import { decisionView, type Strategy } from "../src/modules/bots/built-ins";
import { applyActionInPlace, legalActions, startHand } from "../src/poker/hand";
import { matchStatus, nextButton, seatsInPlay, stacksAfterHand } from "../src/poker/match";
import { cardsDealtAtMost } from "../src/poker/start-validation";

/**
 * The black-box check: a reference none of the bench's bots plays (looser than tight: calls more
 * preflop, bets half the pot with one pair), so no pairing's own policy flatters it. Its weight,
 * 0.15, was fixed on the exploration seeds (least squares 0.06–0.22 over five pairings).
 */
const OUTSIDE_WEIGHT = 0.15;
const OUTSIDE_REFERENCE: ReferencePolicy = (state, legal) => {
  const p = state.actor, hole = [state.holeCards[2 * p], state.holeCards[2 * p + 1]];
  let pot = 0;
  for (const c of state.contributions) pot += c;
  const passive = legal.canCheck ? ({ type: "check" } as const) : ({ type: "call" } as const);
  const give = legal.canCheck ? ({ type: "check" } as const) : ({ type: "fold" } as const);
  const raiseTo = (x: number) => ({ type: "raise" as const, amount: Math.max(legal.minRaiseTo, Math.min(legal.maxRaiseTo, Math.floor(x))) });
  if (state.board.length === 0) {
    const score = startingHandScore(hole[0], hole[1]);
    if (score >= 9) return legal.canRaise ? raiseTo(Math.max(legal.minRaiseTo, 3 * state.config.bigBlind)) : passive;
    return score >= 5 && legal.callAmount <= 4 * state.config.bigBlind ? passive : give;
  }
  const category = categoryIndex(evaluateCards([...hole, ...state.board]));
  if (category >= 2) return legal.canRaise ? raiseTo(legal.minRaiseTo + pot) : passive;
  if (category === 1) return legal.canCheck && legal.canRaise ? raiseTo(legal.minRaiseTo + pot / 2) : legal.callAmount <= pot ? passive : give;
  return give;
};

/** bench:luck's match format: hands at most, chips bought in, blinds (before a freezeout's rise). */
export const HANDS = 100, BUY_IN = 1000, SMALL_BLIND = 5, BIG_BLIND = 10;

/**
 * One seeded in-process match of bench:luck's format (up to 100 hands, 100 big blinds deep, blinds
 * 5/10 times `blindsAt(hand)`): strategyAt[seat] plays each seat, hands are named `names[seat]`;
 * each hand is handed over with the whole deck it was dealt from.
 */
export function playSeededMatch(strategyAt: Strategy[], names: string[], seed: string, blindsAt: (played: number) => number, onHand: (hand: StoredHand, deck: number[]) => void): void {
  const rng = seededRng(seed), rest = seededRng(`${seed}:rest of the deck`);
  const n = strategyAt.length;
  let stacks = strategyAt.map(() => BUY_IN);
  let button: number | null = null;
  for (let played = 0; !matchStatus(stacks, played, HANDS).over; played++) {
    button = nextButton(stacks, button);
    const level = blindsAt(played);
    // The cards a hand can deal come from the match's stream, as always (same seeds, same play); the
    // rest of the deck (the flop's alternatives read it) is shuffled uniformly by a stream of its own.
    const deck = wholeDeck(shuffleDeck(rng, cardsDealtAtMost(n)), cardsDealtAtMost(n), rest);
    const state = startHand({ seats: seatsInPlay(stacks), buttonSeatIndex: button, smallBlind: SMALL_BLIND * level, bigBlind: BIG_BLIND * level, deck });
    while (!state.finished) {
      const action = strategyAt[state.seats[state.actor]](decisionView(state, legalActions(state)!), rng);
      if (!applyActionInPlace(state, action).ok) throw new Error(`${names.join(" vs ")}: illegal ${JSON.stringify(action)}`);
    }
    onHand(storedHandOf(played + 1, state, (p) => names[state.seats[p]]), deck);
    stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
  }
}

/** The deck with its cards past `dealt` in uniformly random order (Fisher–Yates on that tail). */
function wholeDeck(deck: number[], dealt: number, rng: Rng): number[] {
  for (let i = deck.length - 1; i > dealt; i--) {
    const j = dealt + uniformInt(rng, i - dealt + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The figures compared, in the order printed: aivat-1 (the estimator before aivat-2) is "before", aivat-2 "after"; the last is the black-box check (aivat-2 with the outside reference). */
export const FIGURES = ["raw", "all-in adjusted", "chance-1", "baseline-1", "aivat-1", "aivat-2", "outside reference"] as const;
type Figure = (typeof FIGURES)[number];
const pick: Record<Exclude<Figure, "outside reference">, (r: BotHandResult) => number> = {
  raw: (r) => r.rawBb,
  "all-in adjusted": (r) => r.allInEquityBb,
  "chance-1": (r) => r.correctedBb,
  "baseline-1": (r) => r.baselineAdjustedBb,
  "aivat-1": (r) => r.aivat1Bb,
  "aivat-2": (r) => r.estimatedBb,
};

export interface PairingRun {
  label: string;
  selfPlay: boolean;
  samples: Record<Figure, MatchSample[]>;
  /** Per match: Σ (figure − raw) of aivat-1 and aivat-2: the correction terms alone. */
  correction: { "aivat-1": MatchSample[]; "aivat-2": MatchSample[] };
  hands: number;
  handsWithoutDeck: number;
  estimatorMicros: number;
  slowestMicros: number;
}

export function newRun(label: string, selfPlay: boolean): PairingRun {
  const samples = Object.fromEntries(FIGURES.map((f) => [f, []])) as unknown as Record<Figure, MatchSample[]>;
  return { label, selfPlay, samples, correction: { "aivat-1": [], "aivat-2": [] }, hands: 0, handsWithoutDeck: 0, estimatorMicros: 0, slowestMicros: 0 };
}

/** A played match's hands (with their decks) counted for the player `botId`, over the hands it played (six-max: until it busts). */
export function addMatch(run: PairingRun, botId: string, hands: StoredHand[], decks: Array<readonly number[] | null>): void {
  const sums = Object.fromEntries(FIGURES.map((f) => [f, 0])) as Record<Figure, number>;
  let played = 0;
  hands.forEach((hand, i) => {
    const started = performance.now();
    const results = adjustedHandResults(hand, decks[i] ?? null);
    const micros = (performance.now() - started) * 1000; // the ratings' own computation (the check below is the bench's)
    run.estimatorMicros += micros;
    run.slowestMicros = Math.max(run.slowestMicros, micros);
    if (decks[i] == null) run.handsWithoutDeck++;
    const p = results.findIndex((r) => r.botId === botId);
    if (p < 0) return;
    played++;
    for (const f of FIGURES) if (f !== "outside reference") sums[f] += pick[f](results[p]);
    const deck = decks[i] ?? null;
    const outside = deck === null ? 0 : baselineTerms(hand, deck, OUTSIDE_REFERENCE)[p] / hand.bigBlind;
    sums["outside reference"] += results[p].correctedBb - OUTSIDE_WEIGHT * outside - (results[p].flopLuckBb ?? 0) - (results[p].dealLuckBb ?? 0) - (results[p].depthLuckBb ?? 0);
  });
  if (played === 0) throw new Error(`${botId} played none of the match's hands`);
  run.hands += played;
  for (const f of FIGURES) run.samples[f].push({ bigBlinds: sums[f], hands: played });
  run.correction["aivat-1"].push({ bigBlinds: sums["aivat-1"] - sums.raw, hands: played });
  run.correction["aivat-2"].push({ bigBlinds: sums["aivat-2"] - sums.raw, hands: played });
}

const width = (ci: [number, number] | null) => (ci === null ? NaN : ci[1] - ci[0]);
const interval = (ci: [number, number] | null) => (ci === null ? "n/a" : `[${ci[0].toFixed(2)}, ${ci[1].toFixed(2)}]`);
const inside = (x: number, ci: [number, number] | null) => ci !== null && x >= ci[0] && x <= ci[1];
const ratio = (a: RateSummary, raw: RateSummary) => Number((width(a.ci95) / width(raw.ci95)).toFixed(3));
const verdictMatches = (s: RateSummary) => s.matchesForVerdict ?? Infinity;

/** Prints the pairing's figures (bb/100 of its first player, intervals by match as `cli eval` computes them); returns them for the JSON line. */
export function report(run: PairingRun) {
  const s = Object.fromEntries(FIGURES.map((f) => [f, summarize(run.samples[f])])) as Record<Figure, RateSummary>;
  const raw = s.raw;
  console.log(`\n${run.label}: ${raw.matches} matches, ${run.hands} hands${run.handsWithoutDeck ? ` (${run.handsWithoutDeck} without a deck: no baseline)` : ""}; first player's bb/100, 95 % interval by match:`);
  for (const f of FIGURES) {
    const line = `  ${f.padEnd(17)} ${s[f].bbPer100.toFixed(2).padStart(8)} ${interval(s[f].ci95).padEnd(20)}`;
    console.log(f === "raw" ? line : `${line} width / raw ${ratio(s[f], raw).toFixed(3)}${run.selfPlay ? "" : `   matches for a verdict ${verdictMatches(s[f])}`}`);
  }
  const terms = { "aivat-1": summarize(run.correction["aivat-1"]), "aivat-2": summarize(run.correction["aivat-2"]) };
  const term = (f: keyof typeof terms) => `${f} ${terms[f].bbPer100} ${interval(terms[f].ci95)} 0 inside: ${inside(0, terms[f].ci95) ? "yes" : "NO"}`;
  console.log(`  correction term (figure − raw), bb/100: ${term("aivat-1")}; ${term("aivat-2")}`);
  if (run.selfPlay) console.log(`  identical bots: 0 inside the interval: ${FIGURES.map((f) => `${f} ${inside(0, s[f].ci95) ? "yes" : "NO"}`).join(", ")}`);
  console.log(`  cost of the estimators (all-in, chance, baseline, flop, deal, depth): ${(run.estimatorMicros / Math.max(1, run.hands)).toFixed(1)} µs/hand on average, slowest ${(run.slowestMicros / 1000).toFixed(1)} ms`);
  return {
    pairing: run.label, matches: raw.matches, hands: run.hands,
    bbPer100: Object.fromEntries(FIGURES.map((f) => [f, s[f].bbPer100])),
    ci95: Object.fromEntries(FIGURES.map((f) => [f, s[f].ci95])),
    widthRatio: { allIn: ratio(s["all-in adjusted"], raw), chance: ratio(s["chance-1"], raw), baseline: ratio(s["baseline-1"], raw), before: ratio(s["aivat-1"], raw), after: ratio(s["aivat-2"], raw), outside: ratio(s["outside reference"], raw) },
    matchesForVerdict: run.selfPlay ? null : Object.fromEntries(FIGURES.map((f) => [f, verdictMatches(s[f])])),
    correctionCi95: { before: terms["aivat-1"].ci95, after: terms["aivat-2"].ci95 },
    microsPerHand: Number((run.estimatorMicros / Math.max(1, run.hands)).toFixed(1)),
  };
}
