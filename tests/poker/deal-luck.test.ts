import { describe, expect, test } from "bun:test";
import { parseCards } from "@poker-bots/core/cards";
import { seededRng, shuffleDeck, uniformInt } from "@poker-bots/core/rng";
import { finishedHandRecord } from "../../src/poker/all-in-equity.ts";
import { rotatedDeck } from "../../src/poker/baseline.ts";
import { DEAL_WEIGHT, dealEquities, dealLuck } from "../../src/poker/deal-luck.ts";
import { depthLuck } from "../../src/poker/depth-luck.ts";
import { FLOP_ALTERNATIVES, flopMove } from "../../src/poker/flop-luck.ts";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand.ts";
import type { HandState, LegalActions, PlayerAction } from "../../src/poker/hand-types.ts";
import { cardsDealtAtMost } from "../../src/poker/start-validation.ts";

type Policy = (state: HandState, legal: LegalActions) => PlayerAction;
const passive = (legal: LegalActions): PlayerAction => (legal.canCheck ? { type: "check" } : { type: "call" });

/** Plays a deck with a policy that never looks at the cards (so every deck of an orbit is played alike). */
function played(stacks: number[], button: number, bigBlind: number, deck: number[], policy: Policy): HandState {
  const state = startHand({ seats: stacks.map((stack, seatIndex) => ({ seatIndex, stack })), buttonSeatIndex: button, smallBlind: bigBlind / 2, bigBlind, deck });
  while (!state.finished) expect(applyActionInPlace(state, policy(state, legalActions(state)!)).ok).toBe(true);
  return state;
}

/** Preflop the first to act raises to `raise` (null: nobody raises) and the rest call; then checked down. */
const raiseThenCheckDown = (raise: number | null): Policy => {
  let raised = raise === null;
  return (state, legal) => {
    if (!raised && state.street === "preflop" && legal.canRaise) {
      raised = true;
      return { type: "raise", amount: Math.max(legal.minRaiseTo, Math.min(legal.maxRaiseTo, raise!)) };
    }
    return passive(legal);
  };
};

/** Preflop everyone calls; on the flop the first to act goes all in and everyone calls. */
const allInOnTheFlop: Policy = (state, legal) => (state.street === "flop" && legal.canRaise ? { type: "raise", amount: legal.maxRaiseTo } : passive(legal));

const withBigBlind = (state: HandState) => ({ ...finishedHandRecord(state), bigBlind: state.config.bigBlind });

describe("the deal's luck (aivat-2)", () => {
  test("summed over the rotations of the hole cards of any deck it is exactly zero for every player (so its mean over uniform decks is zero), and zero over the players", () => {
    const rng = seededRng("deal luck orbits");
    let orbits = 0, nonZero = 0;
    for (let i = 0; i < 120; i++) {
      const n = 2 + uniformInt(rng, 9);
      const bigBlind = [2, 10, 100][uniformInt(rng, 3)];
      const stacks = Array.from({ length: n }, () => bigBlind + uniformInt(rng, 200 * bigBlind));
      const button = uniformInt(rng, n);
      const deck = shuffleDeck(rng);
      const sums = new Array<number>(n).fill(0);
      for (let k = 0; k < n; k++) {
        const luck = dealLuck(withBigBlind(played(stacks, button, bigBlind, rotatedDeck(deck, n, button, k), (_, legal) => passive(legal))));
        expect(luck).toHaveLength(n);
        expect(Math.abs(luck.reduce((a, b) => a + b, 0))).toBeLessThan(1e-9 * bigBlind);
        luck.forEach((x, p) => (sums[p] += x));
        if (luck.some((x) => Math.abs(x) > 1e-6)) nonZero++;
      }
      for (const sum of sums) expect(Math.abs(sum)).toBeLessThan(1e-9 * bigBlind);
      orbits++;
    }
    expect(orbits).toBe(120);
    expect(nonZero).toBeGreaterThan(400);
  });

  test("the value function ranks the deal: aces against kings about 82 %, the shares sum to one, the weight in big blinds", () => {
    const [aces, kings, nineEight] = [parseCards("AhAs"), parseCards("KdKc"), parseCards("9c8c")];
    const [a, k] = dealEquities([aces, kings]);
    expect(a).toBeGreaterThan(0.78);
    expect(a).toBeLessThan(0.86);
    expect(a + k).toBeCloseTo(1, 12);
    expect(dealEquities([kings, aces])).toEqual([k, a]);
    const three = dealEquities([aces, kings, nineEight]);
    expect(three.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    expect(three[0]).toBeGreaterThan(three[1]);
    // Heads-up the luck is DEAL_WEIGHT big blinds per unit of equity above one half.
    const deck = [...aces.slice(0, 1), ...kings.slice(0, 1), ...aces.slice(1), ...kings.slice(1)];
    const rest = shuffleDeck(seededRng("deal luck rest")).filter((card) => !deck.includes(card));
    const hand = withBigBlind(played([1000, 1000], 0, 10, [...deck, ...rest], (_, legal) => passive(legal)));
    const holeOf = new Map(hand.events.flatMap((e) => (e.type === "hole_cards" ? [[e.seat, e.cards]] : [])));
    const luck = dealLuck(hand);
    hand.players.forEach((player, p) => expect(luck[p]).toBeCloseTo(DEAL_WEIGHT * 10 * (dealEquities([holeOf.get(player.seat)!, holeOf.get(hand.players[1 - p].seat)!])[0] - 0.5), 9));
    expect(Math.max(...luck)).toBeGreaterThan(0.25 * DEAL_WEIGHT * 10);
  });
});

describe("the depth of the cards' luck (aivat-2)", () => {
  test("the flop's part: summed over the decks that trade the flop with each alternative it is exactly zero (2 to 6 players, all in on the flop)", () => {
    const rng = seededRng("depth flop orbits");
    let orbits = 0, nonZero = 0;
    for (let i = 0; i < 40; i++) {
      const n = 2 + uniformInt(rng, 5);
      const stack = 50 + uniformInt(rng, 2000);
      const deck = shuffleDeck(rng);
      const button = uniformInt(rng, n);
      const sums = new Array<number>(n).fill(0);
      for (let k = 0; k <= FLOP_ALTERNATIVES; k++) {
        const swapped = deck.slice(), flopAt = 2 * n + 1, altAt = cardsDealtAtMost(n) + 3 * (k - 1);
        if (k > 0) for (let c = 0; c < 3; c++) [swapped[flopAt + c], swapped[altAt + c]] = [deck[altAt + c], deck[flopAt + c]];
        const record = finishedHandRecord(played(new Array(n).fill(stack), button, 10, swapped, allInOnTheFlop));
        const luck = depthLuck(record, flopMove(record, swapped)!);
        expect(Math.abs(luck.reduce((a, b) => a + b, 0))).toBeLessThan(1e-6);
        luck.forEach((x, p) => (sums[p] += x));
        if (luck.some((x) => Math.abs(x) > 1e-9)) nonZero++;
      }
      for (const sum of sums) expect(Math.abs(sum)).toBeLessThan(1e-6);
      orbits++;
    }
    expect(orbits).toBe(40);
    expect(nonZero).toBeGreaterThan(150);
  });

  test("the turn's and river's parts: summed over every turn and every river that could have come they are exactly zero (heads-up and three-way)", () => {
    const rng = seededRng("depth turn river");
    let hands = 0, runouts = 0, nonZero = 0;
    for (const n of [2, 3, 3]) {
      const stacks = Array.from({ length: n }, () => 100 + uniformInt(rng, 1500));
      const raise = 20 + uniformInt(rng, 600);
      const base = shuffleDeck(rng);
      const holes = base.slice(0, 2 * n), flop = base.slice(2 * n + 1, 2 * n + 4);
      const pool = base.filter((card) => !holes.includes(card) && !flop.includes(card));
      const sums = new Array<number>(n).fill(0);
      for (const turn of pool) {
        for (const river of pool) {
          if (river === turn) continue;
          const others = pool.filter((card) => card !== turn && card !== river);
          const deck = [...holes, others[0], ...flop, others[1], turn, others[2], river, ...others.slice(3)];
          const record = finishedHandRecord(played(stacks, 0, 10, deck, raiseThenCheckDown(raise)));
          // No flop move: the turn's and river's parts alone.
          const luck = depthLuck(record, { move: new Array<number>(n).fill(0), behind: 0, pot: 0 });
          luck.forEach((x, p) => (sums[p] += x));
          if (luck.some((x) => Math.abs(x) > 1e-9)) nonZero++;
          runouts++;
        }
      }
      for (const sum of sums) expect(Math.abs(sum / runouts)).toBeLessThan(1e-9);
      hands++;
    }
    expect(hands).toBe(3);
    expect(runouts).toBeGreaterThan(5000);
    expect(nonZero).toBeGreaterThan(runouts / 2);
  });
});
