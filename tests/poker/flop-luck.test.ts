import { expect, test } from "bun:test";
import { seededRng, shuffleDeck, uniformInt } from "@poker-bots/core/rng";
import { finishedHandRecord } from "../../src/poker/all-in-equity.ts";
import { FLOP_ALTERNATIVES, flopLuck } from "../../src/poker/flop-luck.ts";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand.ts";
import { cardsDealtAtMost } from "../../src/poker/start-validation.ts";
import type { HandState } from "../../src/poker/hand-types.ts";

/** Plays a deck: preflop everyone calls (or checks), or the first to act raises `raise` and the rest call; after the flop everyone checks down. */
function played(stacks: number[], button: number, deck: number[], raise: number | null): HandState {
  const state = startHand({ seats: stacks.map((stack, seatIndex) => ({ seatIndex, stack })), buttonSeatIndex: button, smallBlind: 5, bigBlind: 10, deck });
  let raised = raise === null;
  while (!state.finished) {
    const legal = legalActions(state)!;
    const action = !raised && state.street === "preflop" && legal.canRaise ? ((raised = true), { type: "raise" as const, amount: Math.max(legal.minRaiseTo, Math.min(legal.maxRaiseTo, raise!)) }) : legal.canCheck ? { type: "check" as const } : { type: "call" as const };
    expect(applyActionInPlace(state, action).ok).toBe(true);
  }
  return state;
}

/** The deck with the flop's three positions swapped with alternative k's (k = 0: unchanged). */
function swapped(deck: number[], players: number, k: number): number[] {
  if (k === 0) return deck.slice();
  const out = deck.slice(), flopAt = 2 * players + 1, altAt = cardsDealtAtMost(players) + 3 * (k - 1);
  for (let i = 0; i < 3; i++) [out[flopAt + i], out[altAt + i]] = [deck[altAt + i], deck[flopAt + i]];
  return out;
}

test("summed over the decks that trade the flop with each alternative it is exactly zero: its mean over uniform decks is zero, for 2 to 6 players, side pots included", () => {
  const rng = seededRng("flop orbits");
  let orbits = 0, nonZero = 0;
  for (let i = 0; i < 60; i++) {
    const n = 2 + uniformInt(rng, 5);
    const stacks = Array.from({ length: n }, () => 20 + uniformInt(rng, 2000));
    const button = uniformInt(rng, n);
    const raise = uniformInt(rng, 2) === 0 ? null : 10 + uniformInt(rng, 300);
    const deck = shuffleDeck(rng);
    const sums = new Array<number>(n).fill(0);
    for (let k = 0; k <= FLOP_ALTERNATIVES; k++) {
      const state = played(stacks, button, swapped(deck, n, k), raise);
      const luck = flopLuck(finishedHandRecord(state), swapped(deck, n, k))!;
      expect(luck).toHaveLength(n);
      // Luck only moves chips between the players.
      expect(Math.abs(luck.reduce((a, b) => a + b, 0))).toBeLessThan(1e-6);
      luck.forEach((x, p) => (sums[p] += x));
      if (luck.some((x) => Math.abs(x) > 1e-9)) nonZero++;
    }
    for (const sum of sums) expect(Math.abs(sum)).toBeLessThan(1e-6);
    orbits++;
  }
  expect(orbits).toBe(60);
  expect(nonZero).toBeGreaterThan(200);
});

test("no flop dealt with betting open (a preflop fold, or everyone all in), no flop luck; a deck too short for the alternatives gives none", () => {
  const deck = shuffleDeck(seededRng("short"));
  const folded = startHand({ seats: [{ seatIndex: 0, stack: 500 }, { seatIndex: 1, stack: 500 }], buttonSeatIndex: 0, smallBlind: 5, bigBlind: 10, deck });
  expect(applyActionInPlace(folded, { type: "fold" }).ok).toBe(true);
  expect(flopLuck(finishedHandRecord(folded), deck)).toEqual([0, 0]);
  const allIn = played([300, 300], 0, deck, 300);
  expect(allIn.board).toHaveLength(5);
  expect(flopLuck(finishedHandRecord(allIn), deck)).toEqual([0, 0]);
  expect(flopLuck(finishedHandRecord(played([500, 500], 0, deck, null)), deck.slice(0, 20))).toBeNull();
});
