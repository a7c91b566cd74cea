import { describe, expect, test } from "bun:test";
import { applyAction, legalActions } from "../../src/poker/hand.ts";
import { play, riggedDeck, table } from "./helpers.ts";

describe("heads-up", () => {
  test("the button posts the small blind, acts first before the flop and last after it", () => {
    const state = table([100, 100], 1, { smallBlind: 5, bigBlind: 10 });
    expect(state.events.filter((e) => e.type === "blind")).toEqual([
      { type: "blind", seat: 1, blind: "small", amount: 5, allIn: false },
      { type: "blind", seat: 0, blind: "big", amount: 10, allIn: false },
    ]);
    expect(legalActions(state)!.actor).toBe(1);
    play(state, [[1, "call"], [0, "check"]]);
    expect(state.street).toBe("flop");
    expect(legalActions(state)!.actor).toBe(0);
    play(state, [[0, "check"], [1, "check"]]);
    expect(state.street).toBe("turn");
  });
  test("small blind folding gives the big blind the blinds back plus the small blind", () => {
    const state = play(table([100, 100], 0, { smallBlind: 5, bigBlind: 10 }), [[0, "fold"]]);
    expect(state.result!.stacks).toEqual([95, 105]);
    expect(state.events).toContainEqual({ type: "uncalled_returned", seat: 1, amount: 5 });
  });
});

describe("blinds that cannot be covered", () => {
  test("an all-in big blind still leaves the full big blind to call and caps what it can win", () => {
    const deck = riggedDeck(3, 0, ["2c3d", "Kc5s", "AhAs"], "AcAdKhQs7c");
    const state = table([100, 100, 7], 0, { smallBlind: 5, bigBlind: 10, deck });
    expect(state.events).toContainEqual({ type: "blind", seat: 2, blind: "big", amount: 7, allIn: true });
    expect(legalActions(state)).toMatchObject({ actor: 0, callAmount: 10, minRaiseTo: 20 });
    play(state, [[0, "call"], [1, "call"]]);
    // Seats 0 and 1 check it down; seat 2's aces win the 21-chip main pot only.
    for (let i = 0; i < 3; i++) play(state, [[1, "check"], [0, "check"]]);
    expect(state.result!.pots.map((p) => [p.amount, p.winners])).toEqual([[21, [2]], [6, [1]]]);
    expect(state.result!.stacks).toEqual([90, 96, 21]);
  });
  test("a small blind short of the blind posts all in", () => {
    const state = table([100, 3, 100], 0, { smallBlind: 5, bigBlind: 10 });
    expect(state.events).toContainEqual({ type: "blind", seat: 1, blind: "small", amount: 3, allIn: true });
    expect(state.stacks[1]).toBe(0);
  });
});

describe("minimum raises and reopening (WSOP 2024 rules 96, 96-a)", () => {
  // Flop: seat 1 bets 100, seat 2 moves in for 150 (short of a full raise), seat 3 acts next.
  const flop = (seat3: number) => {
    const state = table([1000, 1000, 160, seat3], 0, { smallBlind: 5, bigBlind: 10 });
    play(state, [[3, "call"], [0, "call"], [1, "call"], [2, "check"], [1, "raise", 100]]);
    expect(legalActions(state)).toMatchObject({ actor: 2, canRaise: true, minRaiseTo: 150, maxRaiseTo: 150 });
    return play(state, [[2, "raise", 150]]);
  };
  test("the minimum raise is the last full raise", () => {
    const state = table([1000, 1000, 1000], 0, { smallBlind: 5, bigBlind: 10 });
    expect(legalActions(state)!.minRaiseTo).toBe(20);
    play(state, [[0, "raise", 35]]);
    expect(legalActions(state)!.minRaiseTo).toBe(60);
  });
  test("96: a short all-in does not reopen the betting for a player who already acted", () => {
    const state = flop(1000);
    expect(legalActions(state)).toMatchObject({ actor: 3, canRaise: true, minRaiseTo: 250 });
    play(state, [[3, "call"], [0, "call"]]);
    expect(legalActions(state)).toMatchObject({ actor: 1, canRaise: false, callAmount: 50 });
    expect(applyAction(state, { type: "raise", amount: 400 })).toEqual({ ok: false, reason: "raising is not allowed now (call or fold)" });
  });
  test("96-a: consecutive short all-ins adding up to a full raise reopen it", () => {
    const state = flop(220);
    expect(legalActions(state)).toMatchObject({ actor: 3, minRaiseTo: 210, maxRaiseTo: 210 });
    play(state, [[3, "raise", 210], [0, "call"]]);
    // 150 and 210 are each short, but seat 1 now faces 110 more than its 100: a full raise.
    expect(legalActions(state)).toMatchObject({ actor: 1, canRaise: true, callAmount: 110, minRaiseTo: 310 });
  });
  test("blinds 1/2, stacks 19/200/16/200: UTG all in 16, button calls, SB all in 19, BB calls: button may not raise", () => {
    const state = table([19, 200, 16, 200], 3);
    play(state, [[2, "raise", 16], [3, "call"], [0, "raise", 19]]);
    expect(legalActions(state)).toMatchObject({ actor: 1, canRaise: true });
    play(state, [[1, "call"]]);
    expect(legalActions(state)).toMatchObject({ actor: 3, canFold: true, canCheck: false, callAmount: 3, canRaise: false });
  });
  test("no raise when every opponent is all in, or when calling puts the actor all in", () => {
    const state = table([50, 100, 30, 1000], 3);
    play(state, [[2, "raise", 30]]);
    expect(legalActions(state)).toMatchObject({ actor: 3, canRaise: true });
    play(state, [[3, "raise", 100], [0, "call"]]);
    expect(legalActions(state)).toMatchObject({ actor: 1, callAmount: 98, canRaise: false });
  });
});

test("three all-ins make pots of 300, 250 and 300 (blinds 1/2, stacks 50,100,200,1000,200,100)", () => {
  const state = table([50, 100, 200, 1000, 200, 100], 5);
  play(state, [[2, "raise", 200]]);
  expect(legalActions(state)).toMatchObject({ actor: 3, canRaise: false, callAmount: 200 });
  play(state, [[3, "call"], [4, "call"], [5, "call"], [0, "call"], [1, "call"]]);
  expect(state.result!.pots.map((p) => [p.amount, p.eligible])).toEqual([
    [300, [0, 1, 2, 3, 4, 5]],
    [250, [1, 2, 3, 4, 5]],
    [300, [2, 3, 4]],
  ]);
  expect(state.board).toHaveLength(5);
  expect(state.result!.shown).toHaveLength(6); // all-in: every hand is tabled
});

test("the odd chip goes to the first winner left of the button", () => {
  const deck = riggedDeck(3, 0, ["2c3d", "4h5s", "6c7d"], "AsKsQsJsTs");
  const state = table([100, 100, 100], 0, { smallBlind: 5, bigBlind: 10, deck });
  play(state, [[0, "call"], [1, "fold"], [2, "check"]]);
  for (let i = 0; i < 3; i++) play(state, [[2, "check"], [0, "check"]]);
  expect(state.result!.pots).toEqual([{ amount: 25, eligible: [0, 2], winners: [2, 0], shares: [13, 12] }]);
});

describe("showdown", () => {
  test("the river bettor shows first; a beaten caller mucks and its cards stay hidden", () => {
    const deck = riggedDeck(2, 0, ["AhAd", "7c2d"], "KcQd9h5s3c");
    const state = table([100, 100], 0, { deck });
    play(state, [[0, "call"], [1, "check"], [1, "check"], [0, "check"], [1, "check"], [0, "check"], [1, "raise", 10], [0, "call"]]);
    expect(state.result!.shown.map((s) => s.seat)).toEqual([1, 0]);
    expect(state.result!.mucked).toEqual([]);
    // Now seat 1 bets the aces and shows first; seat 0's seven-high cannot win and is mucked.
    const deck2 = riggedDeck(2, 0, ["7c2d", "AhAd"], "KcQd9h5s3c");
    const second = table([100, 100], 0, { deck: deck2 });
    play(second, [[0, "call"], [1, "check"], [1, "check"], [0, "check"], [1, "check"], [0, "check"], [1, "raise", 10], [0, "call"]]);
    expect(second.result!.shown.map((s) => s.seat)).toEqual([1]);
    expect(second.result!.mucked).toEqual([0]);
    expect(second.events.some((e) => e.type === "show" && e.seat === 0)).toBe(false);
  });
  test("the uncalled part of a bet is returned", () => {
    const state = table([100, 40], 0);
    play(state, [[0, "raise", 100], [1, "call"]]);
    expect(state.events).toContainEqual({ type: "uncalled_returned", seat: 0, amount: 60 });
    expect(state.result!.stacks.reduce((s, x) => s + x)).toBe(140);
  });
});

describe("illegal actions are refused with a reason and change nothing", () => {
  const state = table([100, 100, 100], 0);
  const before = JSON.stringify(state);
  test.each([
    [{ type: "check" }, "cannot check: 2 to call"],
    [{ type: "raise", amount: 3 }, "raise must be to between 4 and 100"],
    [{ type: "raise", amount: 101 }, "raise must be to between 4 and 100"],
    [{ type: "raise", amount: 4.5 }, "raise needs a whole-chip amount (the street total to raise to)"],
    [{ type: "raise" }, "raise needs a whole-chip amount (the street total to raise to)"],
    [{ type: "jump" }, 'unknown action type "jump"'],
  ] as const)("%o", (action, reason) => {
    expect(applyAction(state, action as any)).toEqual({ ok: false, reason });
    expect(JSON.stringify(state)).toBe(before);
  });
  test("applyAction leaves its input untouched; a finished hand refuses everything", () => {
    const result = applyAction(state, { type: "fold" });
    expect(result.ok).toBe(true);
    expect(JSON.stringify(state)).toBe(before);
    const done = play(table([100, 100], 0), [[0, "fold"]]);
    expect(applyAction(done, { type: "check" })).toEqual({ ok: false, reason: "the hand is finished" });
  });
});

test("a hand state survives JSON round trips mid-hand", () => {
  const state = table([100, 100, 100], 0);
  play(state, [[0, "raise", 6]]);
  const copy = JSON.parse(JSON.stringify(state));
  play(copy, [[1, "call"], [2, "call"]]);
  expect(copy.street).toBe("flop");
});
