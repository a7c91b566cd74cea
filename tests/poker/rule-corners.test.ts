import { describe, expect, test } from "bun:test";
import { legalActions } from "../../src/poker/hand.ts";
import { exportPhh, parsePhh, replayPhh } from "../../src/poker/phh.ts";
import { play, riggedDeck, table } from "./helpers.ts";

/** Corners found by replaying 5,872 hands in pokerkit: decisions that are not decisions, and strict PHH. */
describe("no decision when a player's bet already covers every opponent and all of them are all in", () => {
  test("heads-up, the big blind all in for less than the small blind (2/5, stacks [1, 199]): no request, the hand runs out", () => {
    // Seat 1 is the button and posts the small blind (2); seat 0 posts its only chip.
    const state = table([1, 199], 1, { smallBlind: 2, bigBlind: 5 });
    expect(legalActions(state)).toBeNull();
    expect(state.finished).toBe(true);
    expect(state.events).toContainEqual({ type: "uncalled_returned", seat: 1, amount: 1 });
    expect(state.events.filter((e) => e.type === "action")).toEqual([]);
    expect(state.result!.stacks.reduce((a, b) => a + b)).toBe(200);
    expect([[2, 198], [0, 200], [1, 199]]).toContainEqual(state.result!.stacks);
  });

  test("multiway: the button folds, the small blind already covers the short all-in big blind: no request", () => {
    const state = table([100, 100, 3], 0, { smallBlind: 5, bigBlind: 10 });
    play(state, [[0, "fold"]]);
    expect(legalActions(state)).toBeNull();
    expect(state.finished).toBe(true);
    expect(state.events).toContainEqual({ type: "uncalled_returned", seat: 1, amount: 2 });
    expect(state.result!.pots.map((p) => p.amount)).toEqual([6]);
  });

  test("a player still behind an all-in bet keeps the decision (call or fold)", () => {
    const state = table([100, 100, 30], 0, { smallBlind: 5, bigBlind: 10 });
    play(state, [[0, "fold"], [1, "call"], [2, "raise", 30]]);
    expect(legalActions(state)).toMatchObject({ actor: 1, callAmount: 20, canRaise: false });
  });
});

test("odd chips (Robert's Rules of Poker, Ties): one each to the tied winners from the button's left, never two to one player", () => {
  // Three-way tie on a royal-flush board; pot 74 (antes and the folded big blind's dead chips) = 3 × 24 + 2:
  // the two odd chips go one each to the first two winners left of the button (seats 1 and 3).
  const deck = riggedDeck(4, 0, ["2c3d", "4h5s", "6c7d", "8h9c"], "AsKsQsJsTs");
  const state = table([100, 100, 100, 100], 0, { smallBlind: 5, bigBlind: 10, ante: 1, deck });
  play(state, [[3, "raise", 20], [0, "call"], [1, "call"], [2, "fold"]]);
  for (let i = 0; i < 3; i++) play(state, [[1, "check"], [3, "check"], [0, "check"]]);
  expect(state.result!.pots).toEqual([{ amount: 74, eligible: [0, 1, 3], winners: [1, 3, 0], shares: [25, 25, 24] }]);
});

describe("face up for all-ins (TDA Rule 16)", () => {
  test("a river all-in that is called: the beaten caller's hand is tabled too", () => {
    const deck = riggedDeck(2, 0, ["7c2d", "AhAd"], "KcQd9h5s3c");
    const state = table([100, 50], 0, { deck });
    play(state, [[0, "call"], [1, "check"], [1, "check"], [0, "check"], [1, "check"], [0, "check"], [1, "raise", 48], [0, "call"]]);
    expect(state.result!.shown.map((s) => s.seat)).toEqual([1, 0]);
    expect(state.result!.mucked).toEqual([]);
  });
});

describe("PHH that a strict reader replays as written", () => {
  test("no-choice check: the big blind the engine never asks (everyone else all in or folded) is written `cc`", () => {
    // Button (seat 0) calls all in for 8 < the big blind; the small blind folds; the big blind has nothing to decide.
    const deck = riggedDeck(3, 0, ["AhAd", "7c2d", "KcKd"], "2s3s4h9c8d");
    const state = table([8, 1000, 1000], 0, { smallBlind: 5, bigBlind: 10, deck });
    play(state, [[0, "call"], [1, "fold"]]);
    expect(state.finished).toBe(true);
    const phh = parsePhh(exportPhh(state));
    // PHH order: p1 = small blind (seat 1), p2 = big blind (seat 2), p3 = button (seat 0).
    expect(phh.actions.slice(3)).toEqual(["p3 cc", "p1 f", "p2 cc", "p2 sm KcKd", "p3 sm AhAd", "d db 2s3s4h", "d db 9c", "d db 8d"]);
    expect(replayPhh(phh).finishingStacks).toEqual(phh.finishing_stacks!);
  });

  test("after an all-in the showdown comes before the rest of the board", () => {
    const deck = riggedDeck(2, 0, ["AhAd", "KcKd"], "2s3s4h9c8d");
    const state = table([100, 100], 0, { deck });
    play(state, [[0, "raise", 10], [1, "call"], [1, "raise", 90], [0, "call"]]);
    const actions = parsePhh(exportPhh(state)).actions;
    const firstShow = actions.findIndex((a) => a.includes(" sm "));
    expect(actions.slice(firstShow)).toEqual(["p1 sm KcKd", "p2 sm AhAd", "d db 9c", "d db 8d"]);
    expect(actions.indexOf("d db 2s3s4h")).toBeLessThan(firstShow);
  });

  test("the covered small blind (no decision) is written as the no-choice check pokerkit asks for", () => {
    const state = table([100, 100, 3], 0, { smallBlind: 5, bigBlind: 10 });
    play(state, [[0, "fold"]]);
    const phh = parsePhh(exportPhh(state));
    // p1 = small blind (seat 1), p2 = big blind (seat 2, all in), p3 = button (seat 0).
    expect(phh.actions.slice(3, 5)).toEqual(["p3 f", "p1 cc"]);
    expect(replayPhh(phh).finishingStacks).toEqual(phh.finishing_stacks!);
  });
});

test("a big blind posted short (Robert's Rules of Poker, Button and Blind Use, rule 1): the others call the full big blind and raise from it", () => {
  // Blinds 5/10; seat 2 is the big blind with only 4 chips. Seat 0 (first to act) must call 10, not 4,
  // and may raise to at least 20; the small blind completes to 10.
  const state = table([100, 100, 4], 0, { smallBlind: 5, bigBlind: 10 });
  expect(state.events).toContainEqual({ type: "blind", seat: 2, blind: "big", amount: 4, allIn: true });
  expect(legalActions(state)).toMatchObject({ actor: 0, callAmount: 10, minRaiseTo: 20 });
  play(state, [[0, "call"]]);
  expect(legalActions(state)).toMatchObject({ actor: 1, callAmount: 5, minRaiseTo: 20 });
});
