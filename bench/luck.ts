/**
 * bench:luck (issues 26, 36): how much of a win rate's uncertainty each estimator removes
 * (docs/RATINGS.md). Seeded heads-up matches of built-ins (100 hands, 100 big blinds deep, each
 * strategy on each seat in turn) played in-process with the engine, and matches played as `cli eval`
 * plays them (duplicate pairs through the service's match runner): the equity example bot against
 * tight, and two hosted bots in their sandboxes (a duplicate ladder pairing). Every hand's figures
 * come from the ratings' own code (luck.ts `adjustedHandResults`, with the hand's deck); the 95 %
 * interval is `cli eval`'s (matches as samples). Printed per pairing: width ÷ raw of every estimator,
 * before (aivat-1) and after (aivat-2; chance-1 and baseline-1 beside them), the matches a verdict needs, the correction term's own mean with its
 * interval (unbiased in fact: 0 inside), and what the estimators cost per hand. Figures only, no
 * assertions (tests hold those).
 *
 * LUCK_MATCHES (default 2000) per built-in pairing; LUCK_SIX_MAX_MATCHES (default 300) six-max
 * freezeouts (blinds doubling every 20 hands); LUCK_LOCAL_MATCHES (default 200) equity vs tight;
 * LUCK_HOSTED_MATCHES (default 30) hosted pairs; LUCK_SEED varies the seeds; LUCK_PAIRINGS
 * picks the built-in pairings (`none`: only the others).
 */
import { loadPlayers, playLocalMatch } from "../src/cli/local-match";
import { closeLocalSandbox } from "../src/cli/hosted";
import { STRATEGIES } from "../src/modules/bots/built-ins";
import type { BuiltInStrategy } from "../src/modules/bots/model";
import type { StoredHand } from "../src/poker/hand-record";
import { decksOfSeededMatch } from "../src/cli/eval-runner";
import { BASELINE_WEIGHT } from "../src/modules/ratings/estimator";
import { LUCK_WEIGHT } from "../src/poker/chance-correction";
import { FLOP_ALTERNATIVES, FLOP_WEIGHT } from "../src/poker/flop-luck";
import { DEAL_BOARDS, DEAL_WEIGHT } from "../src/poker/deal-luck";
import { DEPTH_WEIGHT } from "../src/poker/depth-luck";
import { addMatch, BIG_BLIND, BUY_IN, HANDS, newRun, playSeededMatch, report, SMALL_BLIND, type PairingRun } from "./luck-figures";

const MATCHES = Number(process.env.LUCK_MATCHES ?? 2000);
const LOCAL_MATCHES = Number(process.env.LUCK_LOCAL_MATCHES ?? 200);
const HOSTED_MATCHES = Number(process.env.LUCK_HOSTED_MATCHES ?? 30);
const SIX_MAX_MATCHES = Number(process.env.LUCK_SIX_MAX_MATCHES ?? 300);
const SEED = process.env.LUCK_SEED ?? "bench:luck";

/**
 * One in-process match: lineup[i] sits at seat (i + shift) mod n, the blinds of hand h are
 * `blindsAt(h)` (a freezeout's rise); counted for lineup[0].
 */
function playMatch(lineup: BuiltInStrategy[], shift: number, seed: string, run: PairingRun, blindsAt: (played: number) => number = () => 1): void {
  const n = lineup.length;
  const strategyAt = lineup.map((_, seat) => STRATEGIES[lineup[(seat - shift + n) % n]]);
  const names = lineup.map((_, seat) => ((seat - shift + n) % n === 0 ? "first" : `other${seat}`));
  const hands: StoredHand[] = [], decks: number[][] = [];
  playSeededMatch(strategyAt, names, seed, blindsAt, (hand, deck) => (hands.push(hand), decks.push(deck)));
  addMatch(run, "first", hands, decks);
}

function playPairing(first: BuiltInStrategy, second: BuiltInStrategy, selfPlay: boolean): PairingRun {
  const run = newRun(`${first} vs ${second}${selfPlay ? " (identical bots)" : ""}`, selfPlay);
  // Seat order alternates by match, as `cli eval` does, so neither strategy keeps a seat's edge.
  for (let m = 0; m < MATCHES; m++) playMatch([first, second], m % 2, `${SEED}:${first}-${second}:${m}`, run);
  return run;
}

/** Six-max freezeouts: tight against caller, random, tight, caller, random, the blinds doubling every 20 hands; tight's seat turns by match. */
const SIX_MAX: BuiltInStrategy[] = ["tight", "caller", "random", "tight", "caller", "random"];
function playSixMax(matches: number): PairingRun {
  const run = newRun("six-max freezeout: tight vs caller, random, tight, caller, random", false);
  for (let m = 0; m < matches; m++) playMatch(SIX_MAX, m % 6, `${SEED}:six-max:${m}`, run, (played) => 2 ** Math.floor(played / 20));
  return run;
}

/**
 * Duplicate pairs as `cli eval` plays them (the service's match runner, seeded decks; a `hosted:`
 * player in its sandbox), seats alternating by pair; counted for the first spec.
 */
async function playLocalPairing(label: string, specs: [string, string], matches: number): Promise<PairingRun> {
  const run = newRun(label, false);
  const players = await loadPlayers(specs, process.cwd());
  for (let m = 0; m < matches; m++) {
    const seats = m % 2 === 0 ? [players[0], players[1]] : [players[1], players[0]];
    const seed = `${SEED}:${label}:${m}`;
    const result = await playLocalMatch(seats, { seed, hands: HANDS, timeoutMs: 10_000, buyIn: BUY_IN, smallBlind: SMALL_BLIND, bigBlind: BIG_BLIND, duplicate: true });
    addMatch(run, players[0].name, result.histories, decksOfSeededMatch(seed, result.histories));
  }
  return run;
}

const DEFAULT_PAIRINGS: Array<[BuiltInStrategy, BuiltInStrategy]> = [
  ["tight", "caller"], // a known difference; caller never raises
  ["tight", "raiser"], // all in preflop whenever tight holds a premium hand
  ["tight", "tight"], // identical bots (and the reference's own policy: flattered, docs/RATINGS.md)
  ["raiser", "raiser"], // every hand all in preflop
];
/** LUCK_PAIRINGS=caller-random,tight-tight picks others (a strategy against itself: identical bots); `none`: no built-in pairing. */
const PAIRINGS: Array<[BuiltInStrategy, BuiltInStrategy]> = process.env.LUCK_PAIRINGS === "none"
  ? []
  : process.env.LUCK_PAIRINGS
    ? process.env.LUCK_PAIRINGS.split(",").map((pair) => {
        const [a, b] = pair.trim().split("-") as [BuiltInStrategy, BuiltInStrategy];
        if (!STRATEGIES[a] || !STRATEGIES[b]) throw new Error(`LUCK_PAIRINGS: unknown strategy in ${pair} (${Object.keys(STRATEGIES).join(", ")})`);
        return [a, b];
      })
    : DEFAULT_PAIRINGS;

const began = performance.now();
console.log(
  `bench:luck  ${MATCHES} in-process heads-up matches per built-in pairing, ${SIX_MAX_MATCHES} six-max freezeouts, ${LOCAL_MATCHES} duplicate pairs of equity vs tight, ${HOSTED_MATCHES} hosted duplicate pairs; up to ${HANDS} hands, ${BUY_IN / BIG_BLIND} big blinds deep, seeds ${SEED}:<pairing>:<i>; chance-1 turn/river weights ${LUCK_WEIGHT.turn} / ${LUCK_WEIGHT.river}; baseline-1 weight ${BASELINE_WEIGHT} (reference: tight); aivat-1 adds the flop's luck (weight ${FLOP_WEIGHT}, ${FLOP_ALTERNATIVES} alternative flops); aivat-2 the deal's luck (weight ${DEAL_WEIGHT} bb, ${DEAL_BOARDS} boards) and the depth of the cards' luck (weights ${DEPTH_WEIGHT.flop} / ${DEPTH_WEIGHT.turn} / ${DEPTH_WEIGHT.river} per unit of stack-to-pot ratio); the outside reference: aivat-2 with a reference none of these bots plays, weight 0.15`,
);
const figures = PAIRINGS.map(([a, b]) => report(playPairing(a, b, a === b)));
if (SIX_MAX_MATCHES > 0) figures.push(report(playSixMax(SIX_MAX_MATCHES)));
if (LOCAL_MATCHES > 0) figures.push(report(await playLocalPairing("equity-bot vs tight", ["./examples/equity-bot.ts", "tight"], LOCAL_MATCHES)));
if (HOSTED_MATCHES > 0) {
  figures.push(report(await playLocalPairing("hosted equity-bot vs hosted starter-bot", ["hosted:./examples/equity-bot.ts", "hosted:./examples/starter-bot.ts"], HOSTED_MATCHES)));
  await closeLocalSandbox();
}
console.log(`\n(${((performance.now() - began) / 1000).toFixed(1)} s)`);
console.log(JSON.stringify(figures));
process.exit(0);
