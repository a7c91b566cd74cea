/**
 * SCRATCH (issue 36 round 2 prototype, not part of the service; docs/RATINGS.md, "Learned value
 * functions"): per-match sums of candidate mean-zero chance terms for a learned value function, beside
 * raw and aivat-2, one JSON line per counted player and match; bench/luck-learned-fit.ts fits and
 * measures them.
 *
 *   bun bench/luck-learned-features.ts <mode> <seedPrefix> <matches> <out.jsonl>
 *
 * <mode>: `tight-caller` (any two built-ins: bench:luck's heads-up matches, seeds <seedPrefix>:a-b:<i>,
 * counted for the first), `six-max` (bench:luck's freezeouts), `corpus` / `corpus6` (threshold bots
 * with random parameters, heads-up / six-max, every player counted), `local:<spec>,<spec>` (duplicate
 * pairs as `cli eval` plays them; LEARN_LABEL names the pairing in the seeds, default "equity-bot vs
 * tight"). With seedPrefix `bench:luck` the matches are bench:luck's own.
 *
 * Every term is (value after a chance event) − (its mean over the chance outcomes): the turn and
 * river over every unseen card, the flop over the deck's 8 alternative flops (flop-luck.ts), the
 * deal over the hole cards' rotations (baseline.ts); its factors (pot, chips behind, the players'
 * styles from earlier hands) are fixed before the event: mean zero for any fixed weights.
 */
import { seededRng, uniformInt, type Rng } from "@poker-bots/core/rng";
import { categoryIndex, evaluateCards } from "@poker-bots/core/evaluator";
import { STRATEGIES, startingHandScore, type Strategy } from "../src/modules/bots/built-ins";
import type { BuiltInStrategy } from "../src/modules/bots/model";
import { adjustedHandResults } from "../src/modules/ratings/luck";
import type { StoredHand } from "../src/poker/hand-record";
import { cardLuck, luckyCards, potTotal } from "../src/poker/chance-correction";
import { flopMove, FLOP_ALTERNATIVES } from "../src/poker/flop-luck";
import { dealEquities } from "../src/poker/deal-luck";
import { cardsDealtAtMost } from "../src/poker/start-validation";
import { appendFileSync, writeFileSync } from "node:fs";
import { BIG_BLIND, BUY_IN, HANDS, playSeededMatch, SMALL_BLIND } from "./luck-figures";
import { loadPlayers, playLocalMatch } from "../src/cli/local-match";
import { closeLocalSandbox } from "../src/cli/hosted";
import { decksOfSeededMatch } from "../src/cli/eval-runner";
const label = process.env.LEARN_LABEL ?? "equity-bot vs tight";

const [mode, seedPrefix, matchesArg, out] = process.argv.slice(2);
const MATCHES = Number(matchesArg);

// ---------- the corpus's policies: a parametric family of threshold bots, random parameters per seat and match ----------
function corpusPolicy(rng: Rng): Strategy {
  const u = (a: number, b: number) => a + (b - a) * (uniformInt(rng, 1_000_000) / 1_000_000);
  const play = u(0, 11), raise = u(6, 16), open = u(2, 5), callCap = u(2, 40);
  const betCat = 1 + uniformInt(rng, 3), betFrac = u(0.3, 1.6), callCat = uniformInt(rng, 3), callFrac = u(0.2, 3), bluff = u(0, 0.15);
  const own = seededRng(`corpus-policy:${uniformInt(rng, 1 << 30)}`);
  return ({ holeCards, board, pot, bigBlind, legal }) => {
    const passive = legal.canCheck ? ({ type: "check" } as const) : ({ type: "call" } as const);
    const give = legal.canCheck ? ({ type: "check" } as const) : ({ type: "fold" } as const);
    const raiseTo = (x: number) => ({ type: "raise" as const, amount: Math.max(legal.minRaiseTo, Math.min(legal.maxRaiseTo, Math.floor(x))) });
    if (legal.canRaise && uniformInt(own, 1000) < bluff * 1000) return raiseTo(legal.minRaiseTo + pot / 2);
    if (board.length === 0) {
      const s = startingHandScore(holeCards[0], holeCards[1]);
      if (s >= raise) return legal.canRaise ? raiseTo(Math.max(legal.minRaiseTo, open * bigBlind)) : passive;
      if (s >= play && legal.callAmount <= callCap * bigBlind) return passive;
      return give;
    }
    const cat = categoryIndex(evaluateCards([...holeCards, ...board]));
    if (cat >= betCat) return legal.canRaise ? raiseTo(legal.minRaiseTo + betFrac * pot) : passive;
    if (cat >= callCat && legal.callAmount <= callFrac * pot) return passive;
    return give;
  };
}

// ---------- features ----------
const STREETS = ["flop", "turn", "river"] as const;
const CATS = [1, 2, 3, 4];
const MODS = ["1", "c", "b", "cb"] as const;
export const FEATURES: string[] = [
  ...STREETS.flatMap((s) => [`${s}:eqP`, `${s}:eqB`, ...CATS.flatMap((k) => MODS.flatMap((m) => [`${s}:cat${k}P${m}`, `${s}:cat${k}B${m}`]))]),
  "deal:eq", "deal:eqB", "deal:chen", "deal:chenB", "deal:eqBc", "deal:eqBb", "deal:eqBcb",
];
/** A player's observed post-flop style over the match's earlier hands (past of every chance event of this hand). */
interface Style { faced: number; continued: number; unfaced: number; bet: number }
const callRate = (s: Style) => (s.continued + 1) / (s.faced + 2);
const betRate = (s: Style) => (s.bet + 1) / (s.unfaced + 2);
function observeStyles(hand: StoredHand, styles: Map<string, Style>): void {
  const nameOf = new Map(hand.players.map((player) => [player.seat, player.botId]));
  let postflop = false, betOpen = false;
  for (const event of hand.events) {
    if (event.type === "street") (postflop = event.street !== "preflop"), (betOpen = false);
    if (event.type !== "action" || !postflop) continue;
    const name = nameOf.get(event.seat)!;
    let s = styles.get(name);
    if (!s) styles.set(name, (s = { faced: 0, continued: 0, unfaced: 0, bet: 0 }));
    if (betOpen) {
      s.faced++;
      if (event.action !== "fold") s.continued++;
    } else {
      s.unfaced++;
      if (event.action === "raise") s.bet++;
    }
    if (event.action === "raise") betOpen = true;
  }
}
const F = new Map(FEATURES.map((f, i) => [f, i]));

/** h(p) − mean of h over the others in (antisymmetric: sums to zero over the players in). */
function antisym(values: number[]): number[] {
  const n = values.length;
  if (n < 2) return values.map(() => 0);
  const total = values.reduce((a, b) => a + b, 0);
  return values.map((v) => v - (total - v) / (n - 1));
}

/** Cumulative category indicators cat ≥ k for each k of CATS, per player in. */
function catIndicators(holes: number[][], board: number[]): number[][] {
  return holes.map((hole) => {
    const c = categoryIndex(evaluateCards([...hole, ...board]));
    return CATS.map((k) => (c >= k ? 1 : 0));
  });
}

function handFeatures(hand: StoredHand, deck: readonly number[], styles: Map<string, Style>): number[][] {
  const styleOf = (p: number) => styles.get(hand.players[p].botId) ?? { faced: 0, continued: 0, unfaced: 0, bet: 0 };
  const n = hand.players.length, bb = hand.bigBlind;
  const feats = hand.players.map(() => new Array<number>(FEATURES.length).fill(0));
  const playerOf = new Map(hand.players.map((player, p) => [player.seat, p]));
  const add = (p: number, name: string, x: number) => (feats[p][F.get(name)!] += x / bb);
  // Deal: over the rotations (every player holds every dealt hand once): h(p) − mean_q h(q).
  const holes: number[][] = [];
  for (const event of hand.events) if (event.type === "hole_cards") holes[playerOf.get(event.seat)!] = event.cards;
  const stacks = hand.players.map((p) => p.startingStack).sort((a, b) => b - a);
  const depth = stacks[1];
  const eq = dealEquities(holes);
  const chen = holes.map((h) => startingHandScore(h[0], h[1]));
  const chenMean = chen.reduce((a, b) => a + b, 0) / n;
  for (let p = 0; p < n; p++) {
    add(p, "deal:eq", bb * (eq[p] - 1 / n));
    add(p, "deal:eqB", (eq[p] - 1 / n) * depth);
    add(p, "deal:chen", bb * (chen[p] - chenMean));
    add(p, "deal:chenB", (chen[p] - chenMean) * depth / 10);
  }
  {
    // style-weighted deal terms: u_q = (e_q − 1/n)·depth·mod(q); feature_p = u_p − mean over the others of u_q (rotation mean zero holds only for mod ≡ const, so use u(p) − mean over rotations: the styles stay with the seats, the cards rotate)
    const c = hand.players.map((_, p) => { let t = 0; for (let q = 0; q < n; q++) if (q !== p) t += callRate(styleOf(q)); return t / (n - 1); });
    const b = hand.players.map((_, p) => betRate(styleOf(p)));
    for (let p = 0; p < n; p++) {
      add(p, "deal:eqBc", (eq[p] - 1 / n) * depth * c[p]);
      add(p, "deal:eqBb", (eq[p] - 1 / n) * depth * b[p]);
      add(p, "deal:eqBcb", (eq[p] - 1 / n) * depth * c[p] * b[p]);
    }
  }
  // Flop, turn, river dealt with betting open.
  const first = cardsDealtAtMost(n);
  const fm = flopMove(hand, deck)!;
  for (const card of luckyCards(hand, true)) {
    const street = card.board.length === 3 ? "flop" : card.board.length === 4 ? "turn" : "river";
    const P = potTotal(card.spot), B = card.behind;
    const inSeats = card.spot.seats;
    const inHoles = inSeats.map((_, j) => card.spot.holeCards.slice(2 * j, 2 * j + 2));
    // equity move (w = 1) and its depth-scaled twin
    const move = street === "flop" ? inSeats.map((seat) => fm.move[playerOf.get(seat)!]) : cardLuck(card.spot, card.board, 1);
    inSeats.forEach((seat, j) => {
      const p = playerOf.get(seat)!;
      add(p, `${street}:eqP`, move[j]);
      add(p, `${street}:eqB`, (move[j] * B) / P);
    });
    // category indicators: realized − mean over the alternatives
    const alternatives: number[][] = [];
    if (street === "flop") {
      for (let k = 0; k < FLOP_ALTERNATIVES; k++) alternatives.push(deck.slice(first + 3 * k, first + 3 * k + 3));
    } else {
      const seen = new Uint8Array(52);
      for (const c of card.spot.holeCards) seen[c] = 1;
      for (const c of card.spot.deadCards) seen[c] = 1;
      for (const c of card.spot.board) seen[c] = 1;
      for (let c = 0; c < 52; c++) if (!seen[c]) alternatives.push([...card.spot.board, c]);
    }
    const real = catIndicators(inHoles, card.board);
    const mean = inHoles.map(() => CATS.map(() => 0));
    for (const board of alternatives) {
      catIndicators(inHoles, board).forEach((row, j) => row.forEach((x, k) => (mean[j][k] += x / alternatives.length)));
    }
    const ps = inSeats.map((seat) => playerOf.get(seat)!);
    const cOpp = ps.map((p) => { let t = 0; for (const q of ps) if (q !== p) t += callRate(styleOf(q)); return t / (ps.length - 1); });
    const bOwn = ps.map((p) => betRate(styleOf(p)));
    const modOf = { "1": (_: number) => 1, c: (j: number) => cOpp[j], b: (j: number) => bOwn[j], cb: (j: number) => cOpp[j] * bOwn[j] };
    CATS.forEach((k, ki) => {
      for (const m of MODS) {
        const delta = antisym(inHoles.map((_, j) => (real[j][ki] - mean[j][ki]) * modOf[m](j)));
        ps.forEach((p, j) => {
          add(p, `${street}:cat${k}P${m}`, delta[j] * P);
          add(p, `${street}:cat${k}B${m}`, delta[j] * B);
        });
      }
    });
  }
  return feats;
}

writeFileSync(out, "");
/**
 * LEARN_BINNED=1: the base terms (per street: equity × pot, × behind, two pair or better × pot, ×
 * behind; the deal's four) placed in one of 9 slots by the player's style before the hand (own bet
 * rate < 0.25, < 0.5, else; the others' mean rate of going on facing a bet < 0.6, < 0.85, else): a
 * value function whose weights depend on the observed styles, each term still mean zero.
 */
const binned = process.env.LEARN_BINNED === "1";
const BASE = [...STREETS.flatMap((s) => [`${s}:eqP`, `${s}:eqB`, `${s}:cat2P1`, `${s}:cat2B1`]), "deal:eq", "deal:eqB", "deal:chen", "deal:chenB"].map((name) => F.get(name)!);
function binnedFeatures(hand: StoredHand, feats: number[][], styles: Map<string, Style>): number[][] {
  const styleOf = (p: number) => styles.get(hand.players[p].botId) ?? { faced: 0, continued: 0, unfaced: 0, bet: 0 };
  const n = hand.players.length;
  return feats.map((row, p) => {
    let c = 0;
    for (let q = 0; q < n; q++) if (q !== p) c += callRate(styleOf(q)) / (n - 1);
    const b = betRate(styleOf(p));
    const slot = 3 * (b < 0.25 ? 0 : b < 0.5 ? 1 : 2) + (c < 0.6 ? 0 : c < 0.85 ? 1 : 2);
    const out = new Array<number>(9 * BASE.length).fill(0);
    BASE.forEach((i, j) => (out[slot * BASE.length + j] = row[i]));
    return out;
  });
}
type Sums = Map<string, { raw: number; aivat2: number; hands: number; f: number[] }>;
function countHand(hand: StoredHand, deck: readonly number[], styles: Map<string, Style>, sums: Sums): void {
  const results = adjustedHandResults(hand, deck);
  const feats = binned ? binnedFeatures(hand, handFeatures(hand, deck, styles), styles) : handFeatures(hand, deck, styles);
  observeStyles(hand, styles);
  results.forEach((r, p) => {
    const s = sums.get(r.botId);
    if (!s) return;
    s.raw += r.rawBb;
    s.aivat2 += r.estimatedBb;
    s.hands++;
    feats[p].forEach((x, i) => (s.f[i] += x));
  });
}
function playMatch(strategyAt: Strategy[], names: string[], seed: string, counted: string[], blindsAt: (played: number) => number = () => 1): void {
  const styles = new Map<string, Style>();
  const sums: Sums = new Map(counted.map((name) => [name, { raw: 0, aivat2: 0, hands: 0, f: new Array<number>(binned ? 9 * BASE.length : FEATURES.length).fill(0) }]));
  playSeededMatch(strategyAt, names, seed, blindsAt, (hand, deck) => countHand(hand, deck, styles, sums));
  for (const [name, s] of sums) if (s.hands > 0) appendFileSync(out, JSON.stringify({ seed, name, ...s }) + "\n");
}

const began = performance.now();
if (mode === "corpus" || mode === "corpus6") {
  const n = mode === "corpus" ? 2 : 6;
  for (let m = 0; m < MATCHES; m++) {
    const rng = seededRng(`${seedPrefix}:policies:${m}`);
    const strategies = Array.from({ length: n }, () => corpusPolicy(rng));
    const names = strategies.map((_, i) => `p${i}`);
    playMatch(strategies, names, `${seedPrefix}:${mode}:${m}`, names, n === 6 ? (played) => 2 ** Math.floor(played / 20) : undefined);
  }
} else if (mode.startsWith("local:")) {
  const specs = mode.slice(6).split(",") as [string, string];
  const players = await loadPlayers(specs, process.cwd());
  for (let m = 0; m < MATCHES; m++) {
    const seats = m % 2 === 0 ? [players[0], players[1]] : [players[1], players[0]];
    const seed = `${seedPrefix}:${label}:${m}`;
    const result = await playLocalMatch(seats, { seed, hands: HANDS, timeoutMs: 10_000, buyIn: BUY_IN, smallBlind: SMALL_BLIND, bigBlind: BIG_BLIND, duplicate: true });
    const decks = decksOfSeededMatch(seed, result.histories);
    let styles = new Map<string, Style>();
    const sums: Sums = new Map([[players[0].name, { raw: 0, aivat2: 0, hands: 0, f: new Array<number>(binned ? 9 * BASE.length : FEATURES.length).fill(0) }]]);
    // A duplicate's copies share the deck: each copy's styles come from its own earlier hands only.
    result.histories.forEach((hand, i) => {
      if (i > 0 && hand.handNumber <= result.histories[i - 1].handNumber) styles = new Map();
      countHand(hand, decks[i]!, styles, sums);
    });
    for (const [name, s] of sums) if (s.hands > 0) appendFileSync(out, JSON.stringify({ seed, name, ...s }) + "\n");
  }
  await closeLocalSandbox();
} else if (mode === "six-max") {
  const SIX: BuiltInStrategy[] = ["tight", "caller", "random", "tight", "caller", "random"];
  for (let m = 0; m < MATCHES; m++) {
    const shift = m % 6;
    const strategyAt = SIX.map((_, seat) => STRATEGIES[SIX[(seat - shift + 6) % 6]]);
    const names = SIX.map((_, seat) => ((seat - shift + 6) % 6 === 0 ? "first" : `other${seat}`));
    playMatch(strategyAt, names, `${seedPrefix}:six-max:${m}`, ["first"], (played) => 2 ** Math.floor(played / 20));
  }
} else {
  const [a, b] = mode.split("-") as [BuiltInStrategy, BuiltInStrategy];
  for (let m = 0; m < MATCHES; m++) {
    const shift = m % 2;
    const lineup = [a, b];
    const strategyAt = lineup.map((_, seat) => STRATEGIES[lineup[(seat - shift + 2) % 2]]);
    const names = lineup.map((_, seat) => ((seat - shift + 2) % 2 === 0 ? "first" : `other${seat}`));
    playMatch(strategyAt, names, `${seedPrefix}:${a}-${b}:${m}`, ["first"]);
  }
}
console.error(`${mode} ${seedPrefix} ${MATCHES}: ${((performance.now() - began) / 1000).toFixed(1)} s`);
