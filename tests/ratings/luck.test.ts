import { expect, test } from "bun:test";
import { adjustedHandResults } from "../../src/modules/ratings/luck.ts";
import type { StoredHand } from "../../src/modules/match-host/hand-history.ts";
import type { HandState } from "../../src/poker/hand-types.ts";
import { play, riggedDeck, table } from "../poker/helpers.ts";

/** The fields handHistory() stores, as the database gives them back (JSON). */
function stored(state: HandState, botIds: string[]): StoredHand {
  const history: StoredHand = {
    handNumber: 1,
    button: state.seats[state.button],
    smallBlind: state.config.smallBlind,
    bigBlind: state.config.bigBlind,
    config: state.config,
    players: state.seats.map((seat, p) => ({ seat, botId: botIds[p], startingStack: state.startingStacks[p], finalStack: state.result!.stacks[p] })),
    board: state.board,
    events: state.events,
    pots: state.result!.pots,
  };
  return JSON.parse(JSON.stringify(history));
}

test("a stored preflop all-in: raw and adjusted results per bot in big blinds", () => {
  const state = play(table([200, 200], 0, { deck: riggedDeck(2, 0, ["AhAs", "KhKd"], "Kc7d2s9h3c") }), [[0, "raise", 200], [1, "call"]]);
  const [aces, kings] = adjustedHandResults(stored(state, ["bot_aces", "bot_kings"]));
  expect(aces.botId).toBe("bot_aces");
  expect([aces.rawBb, kings.rawBb]).toEqual([-100, 100]);
  // 400 chips at 81.946 % (bigBlind 2): −100 + 200 × 0.81946 big blinds.
  expect(aces.allInEquityBb).toBeCloseTo(-100 + 200 * 0.81946, 2);
  expect(aces.allInEquityBb + kings.allInEquityBb).toBeCloseTo(0, 9);
  expect(aces.correctedBb).toBe(aces.allInEquityBb); // all in preflop: no card dealt with betting open
});

test("a stored checked-down hand: the corrected figure takes the turn's and river's luck out", () => {
  const state = play(table([200, 200], 0, { deck: riggedDeck(2, 0, ["AhQh", "7s6s"], "AsKd7c2d7h") }), [
    [0, "raise", 10], [1, "call"], [1, "raise", 20], [0, "call"], [1, "check"], [0, "check"], [1, "check"], [0, "check"],
  ]);
  const [aces, sevens] = adjustedHandResults(stored(state, ["a", "b"]));
  expect([aces.rawBb, aces.allInEquityBb]).toEqual([-15, -15]);
  expect(aces.correctedBb).toBeGreaterThan(0); // the aces were well ahead on the flop
  expect(aces.correctedBb + sevens.correctedBb).toBeCloseTo(0, 9);
});

test("a hand without an all-in runout: adjusted = raw", () => {
  const state = play(table([100, 100], 0), [[0, "raise", 10], [1, "fold"]]);
  expect(adjustedHandResults(stored(state, ["a", "b"]))).toEqual([
    { botId: "a", rawBb: 1, allInEquityBb: 1, correctedBb: 1, baselineBb: null, baselineAdjustedBb: 1, flopLuckBb: null, aivat1Bb: 1, dealLuckBb: null, depthLuckBb: null, estimatedBb: 1 },
    { botId: "b", rawBb: -1, allInEquityBb: -1, correctedBb: -1, baselineBb: null, baselineAdjustedBb: -1, flopLuckBb: null, aivat1Bb: -1, dealLuckBb: null, depthLuckBb: null, estimatedBb: -1 },
  ]);
});
