import { describe, expect, test } from "bun:test";
import { seededRng, shuffleDeck, uniformInt } from "@poker-bots/core/rng";
import { baselineTerms, referencePlay, rotatedDeck, type DealtHand } from "../../src/poker/baseline.ts";
import { startHand } from "../../src/poker/hand.ts";
import { REFERENCE_POLICY, BASELINE_WEIGHT } from "../../src/modules/ratings/estimator.ts";
import { adjustedHandResults, ratedMatchOf } from "../../src/modules/ratings/luck.ts";
import { decksOf } from "../../src/modules/match-host/recorded-hands.ts";
import { storedHandOf, type StoredHand } from "../../src/poker/hand-record.ts";
import { fairDeck, seededDeckSecret } from "../../src/poker/fair-deck.ts";
import { decisionView, STRATEGIES } from "../../src/modules/bots/built-ins.ts";
import { applyActionInPlace, legalActions } from "../../src/poker/hand.ts";

/** A hand's start with seats 0..n−1 at these stacks, blinds and antes. */
function dealt(stacks: number[], button: number, smallBlind: number, bigBlind: number, ante = 0): DealtHand {
  return {
    button,
    smallBlind,
    bigBlind,
    config: { antes: stacks.map(() => ante), anteTrimming: true, minBet: bigBlind },
    players: stacks.map((startingStack, seat) => ({ seat, startingStack })),
  };
}

/** Random starts: 2 to 6 players, stacks from short (a bust coming) to deep, a freezeout's blinds, antes sometimes. */
function randomStart(rng: ReturnType<typeof seededRng>): DealtHand {
  const n = 2 + uniformInt(rng, 5);
  const bigBlind = [2, 10, 40, 100][uniformInt(rng, 4)];
  const stacks = Array.from({ length: n }, () => 1 + uniformInt(rng, 200 * bigBlind));
  return dealt(stacks, uniformInt(rng, n), bigBlind / 2, bigBlind, uniformInt(rng, 3) === 0 ? Math.max(1, bigBlind / 10) : 0);
}

describe("the baseline's control variate", () => {
  test("rotation k deals player p the hole cards player p + k was dealt, the board unchanged", () => {
    const rng = seededRng("rotations");
    let checked = 0;
    for (let i = 0; i < 50; i++) {
      const hand = randomStart(rng);
      const n = hand.players.length;
      const deck = shuffleDeck(rng);
      const holesOf = (d: number[]) => startHand({ seats: hand.players.map((p) => ({ seatIndex: p.seat, stack: p.startingStack })), buttonSeatIndex: hand.button, smallBlind: hand.smallBlind, bigBlind: hand.bigBlind, deck: d }).holeCards;
      const dealtCards = holesOf(deck);
      for (let k = 0; k < n; k++) {
        const rotated = rotatedDeck(deck, n, hand.button, k);
        const holes = holesOf(rotated);
        for (let p = 0; p < n; p++) expect([holes[2 * p], holes[2 * p + 1]]).toEqual([dealtCards[2 * ((p + k) % n)], dealtCards[2 * ((p + k) % n) + 1]]);
        expect(rotated.slice(2 * n)).toEqual(deck.slice(2 * n, 2 * n + 8));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  test("summed over the rotations of any deck it is exactly zero (so its mean over uniform decks is zero), and zero over the players", () => {
    const rng = seededRng("orbits");
    let orbits = 0, nonZero = 0;
    for (let i = 0; i < 300; i++) {
      const hand = randomStart(rng);
      const n = hand.players.length;
      const deck = shuffleDeck(rng);
      const orbit = Array.from({ length: n }, (_, k) => baselineTerms(hand, rotatedDeck(deck, n, hand.button, k), REFERENCE_POLICY));
      for (let p = 0; p < n; p++) expect(Math.abs(orbit.reduce((sum, terms) => sum + terms[p], 0))).toBeLessThan(1e-9);
      for (const terms of orbit) expect(Math.abs(terms.reduce((a, b) => a + b, 0))).toBeLessThan(1e-9);
      if (orbit.some((terms) => terms.some((x) => x !== 0))) nonZero++;
      orbits++;
    }
    expect(orbits).toBe(300);
    // Not zero by being empty: on many orbits the reference wins and loses chips (it folds most hands preflop, a blind each way).
    expect(nonZero).toBeGreaterThan(100);
  });

  test("the reference's own result is not centred at uneven stacks and one button; the baseline is (95 % interval over 20,000 seeded deals)", () => {
    const rng = seededRng("centred");
    const hand = dealt([150, 1850], 0, 5, 10);
    const deals = 20_000;
    let sumRef = 0, sumRefSq = 0, sum = 0, sumSq = 0;
    for (let i = 0; i < deals; i++) {
      const deck = shuffleDeck(rng, 12);
      const ref = referencePlay(hand, deck, REFERENCE_POLICY)[0];
      const term = baselineTerms(hand, deck, REFERENCE_POLICY)[0];
      sumRef += ref;
      sumRefSq += ref * ref;
      sum += term;
      sumSq += term * term;
    }
    const ci = (s: number, sq: number) => {
      const mean = s / deals, half = 1.96 * Math.sqrt((sq / deals - mean * mean) / (deals - 1));
      return [mean - half, mean + half];
    };
    const [lo, hi] = ci(sum, sumSq);
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(0);
    // The plain self-play result has an edge by seat (here the button's): why the rotations are there.
    const [refLo, refHi] = ci(sumRef, sumRefSq);
    expect(refLo > 0 || refHi < 0).toBe(true);
  });
});

/** A heads-up match of two built-ins from a deck secret, its hands stored as the service stores them. */
function seededMatch(secret: string, hands: number): StoredHand[] {
  const rng = seededRng(secret);
  const stacks = [1000, 1000];
  const stored: StoredHand[] = [];
  for (let h = 1; h <= hands && stacks.every((s) => s > 0); h++) {
    const state = startHand({ seats: [0, 1].map((seatIndex) => ({ seatIndex, stack: stacks[seatIndex] })), buttonSeatIndex: h % 2, smallBlind: 5, bigBlind: 10, deck: fairDeck(secret, h) });
    while (!state.finished) {
      const strategy = state.seats[state.actor] === 0 ? STRATEGIES.tight : STRATEGIES.caller;
      expect(applyActionInPlace(state, strategy(decisionView(state, legalActions(state)!), rng)).ok).toBe(true);
    }
    stored.push(JSON.parse(JSON.stringify(storedHandOf(h, state, (p) => ["bot_t", "bot_c"][state.seats[p]]))));
    state.result!.stacks.forEach((stack, p) => (stacks[state.seats[p]] = stack));
  }
  return stored;
}

describe("the estimator in the ratings", () => {
  const secret = seededDeckSecret("baseline ratings");
  const hands = seededMatch(secret, 40);
  const deal = { matchId: "m", smallBlind: 5, bigBlind: 10, legacyDuplicate: false, deckSecret: secret, seatBots: ["bot_t", "bot_c"] };

  test("each hand's figure is the chance-corrected one minus the weighted baseline (baseline-1), minus the flop's luck (aivat-1), minus the deal's luck and the depth of the cards' luck (aivat-2); with no deck it is the chance-corrected one", () => {
    const decks = decksOf(deal, hands);
    expect(decks.every((d) => d !== null && d.length === 52)).toBe(true);
    let moved = 0, flops = 0, deals = 0, depths = 0;
    hands.forEach((hand, i) => {
      for (const r of adjustedHandResults(hand, decks[i])) {
        expect(r.baselineAdjustedBb).toBeCloseTo(r.correctedBb - BASELINE_WEIGHT * r.baselineBb!, 12);
        expect(r.aivat1Bb).toBeCloseTo(r.baselineAdjustedBb - r.flopLuckBb!, 12);
        expect(r.estimatedBb).toBeCloseTo(r.aivat1Bb - r.dealLuckBb! - r.depthLuckBb!, 12);
        if (r.baselineBb !== 0) moved++;
        if (r.flopLuckBb !== 0) flops++;
        if (r.dealLuckBb !== 0) deals++;
        if (r.depthLuckBb !== 0) depths++;
      }
      for (const r of adjustedHandResults(hand, null)) {
        expect([r.baselineBb, r.flopLuckBb, r.dealLuckBb, r.depthLuckBb, r.aivat1Bb, r.estimatedBb]).toEqual([null, null, null, null, r.correctedBb, r.correctedBb]);
      }
    });
    expect(moved).toBeGreaterThan(10);
    expect(flops).toBeGreaterThan(5);
    expect(deals).toBeGreaterThan(10);
    expect(depths).toBeGreaterThan(5);
  });

  test("a match is rated by aivat-2 only when every hand's whole deck is known, else by chance-1; raw sums agree", () => {
    const decks = decksOf(deal, hands);
    const withDecks = ratedMatchOf(["bot_t", "bot_c"], hands, decks);
    const without = ratedMatchOf(["bot_t", "bot_c"], hands);
    const oneMissing = ratedMatchOf(["bot_t", "bot_c"], hands, decks.map((d, i) => (i === 3 ? null : d)));
    const short = ratedMatchOf(["bot_t", "bot_c"], hands, decks.map((d) => d!.slice(0, 12)));
    expect([withDecks.estimator, without.estimator, oneMissing.estimator, short.estimator]).toEqual(["aivat-2", "chance-1", "chance-1", "chance-1"]);
    expect(oneMissing.results).toEqual(without.results);
    expect(withDecks.results.map((r) => r.hands.sumBb)).toEqual(without.results.map((r) => r.hands.sumBb));
    expect(withDecks.results[0].hands.sumAdjustedBb).not.toBe(without.results[0].hands.sumAdjustedBb);
    // Zero-sum: what one bot gains by the estimator the other loses.
    expect(withDecks.results[0].hands.sumAdjustedBb + withDecks.results[1].hands.sumAdjustedBb).toBeCloseTo(0, 9);
  });

  test("a secret that does not deal the recorded cards gives no decks", () => {
    expect(decksOf({ ...deal, deckSecret: seededDeckSecret("another") }, hands).every((d) => d === null)).toBe(true);
    expect(decksOf({ ...deal, deckSecret: null }, hands).every((d) => d === null)).toBe(true);
  });
});

describe("cli eval's matches", () => {
  test("a seeded duplicate pair played locally has every hand's deck (both copies), so eval's adjusted figure is aivat-2", async () => {
    const { loadPlayers, playLocalMatch } = await import("../../src/cli/local-match.ts");
    const { decksOfSeededMatch } = await import("../../src/cli/eval-runner.ts");
    const players = await loadPlayers(["tight", "caller"], process.cwd());
    const result = await playLocalMatch(players, { seed: "eval decks", hands: 30, timeoutMs: 5000, buyIn: 1000, smallBlind: 5, bigBlind: 10, duplicate: true });
    const decks = decksOfSeededMatch("eval decks", result.histories);
    expect(result.histories.length).toBeGreaterThan(30);
    expect(decks).toHaveLength(result.histories.length);
    expect(decks.every((deck) => deck !== null)).toBe(true);
    expect(ratedMatchOf(players.map((p) => p.name), result.histories, decks).estimator).toBe("aivat-2");
    // Another seed's decks do not deal these cards.
    expect(decksOfSeededMatch("another seed", result.histories).every((deck) => deck === null)).toBe(true);
  });
});
