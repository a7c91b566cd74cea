import { describe, expect, test } from "bun:test";
import { allInEquityResults, allInSpot, binomial, finishedHandRecord, potEquities } from "../../src/poker/all-in-equity.ts";
import { parseCards } from "@poker-bots/core/cards";
import { evaluate7 } from "@poker-bots/core/evaluator";
import { applyActionInPlace, legalActions, startHand, type StartHandOptions } from "../../src/poker/hand.ts";
import type { PlayerAction } from "../../src/poker/hand-types.ts";
import { seededRng, shuffleDeck, uniformInt } from "@poker-bots/core/rng";
import { randomLegalAction } from "../../src/poker/simulate.ts";
import { play, riggedDeck, table } from "./helpers.ts";

const results = (state: Parameters<typeof finishedHandRecord>[0]) => allInEquityResults(finishedHandRecord(state));

describe("all-in adjustment: hand-computed cases", () => {
  test("AhAs vs KhKd all in preflop: 81.95 % / 18.05 %, and exactly what brute-force counting gives", () => {
    // KK makes a set on the flop and wins 400 as dealt; the adjustment credits the equities instead.
    const state = play(table([200, 200], 0, { deck: riggedDeck(2, 0, ["AhAs", "KhKd"], "Kc7d2s9h3c") }), [
      [0, "raise", 200],
      [1, "call"],
    ]);
    const [aces, kings] = results(state);
    expect([aces.raw, kings.raw]).toEqual([-200, 200]);
    // Independent count: every 5-card board from the 48 unseen cards, evaluate7 on each hand.
    const holes = parseCards("AhAsKhKd");
    const unseen = Array.from({ length: 52 }, (_, c) => c).filter((c) => !holes.includes(c));
    let wins = 0, ties = 0, boards = 0;
    const n = unseen.length;
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) for (let c = b + 1; c < n; c++) for (let d = c + 1; d < n; d++) for (let e = d + 1; e < n; e++) {
      const board = [unseen[a], unseen[b], unseen[c], unseen[d], unseen[e]] as const;
      const x = evaluate7(holes[0], holes[1], ...board), y = evaluate7(holes[2], holes[3], ...board);
      boards++;
      if (x > y) wins++;
      else if (x === y) ties++;
    }
    expect(boards).toBe(1_712_304);
    const acesEquity = (wins + ties / 2) / boards;
    expect(acesEquity).toBeCloseTo(0.8195, 4);
    expect(aces.allInEquity).toBeCloseTo(-200 + 400 * acesEquity, 9);
    expect(kings.allInEquity).toBeCloseTo(200 - 400 * acesEquity, 9);
  });

  test("three-way turn all-in with a side pot: 34, 4 and 4 rivers of 42 for the main pot, 38 and 4 for the side pot", () => {
    // Board Ah Kd 7c 2s. P0 7h7d (set) is all in for 100; P1 AcKc (two pair) and P2 QsJs (gutshot) put 300 each.
    // River A or K (2 + 2 left): P1's full house wins both pots; T (4): P2's straight wins both; else P0 the main, P1 the side.
    const deck = riggedDeck(3, 0, ["7h7d", "AcKc", "QsJs"], "AhKd7c2sTc");
    const state = play(table([100, 300, 300], 0, { deck }), [
      [0, "raise", 100], [1, "call"], [2, "call"],
      [1, "check"], [2, "check"],
      [1, "raise", 200], [2, "call"],
    ]);
    const spot = allInSpot(finishedHandRecord(state))!;
    expect(spot.board).toEqual(parseCards("AhKd7c2s"));
    const [main, side] = potEquities(spot);
    expect(main.runouts).toBe(42);
    expect(main.eligible).toEqual([0, 1, 2]);
    [300 * 34, 300 * 4, 300 * 4].forEach((chips, i) => expect(main.expected[i] * 42).toBeCloseTo(chips, 9));
    expect(side.eligible).toEqual([1, 2]);
    [400 * 38, 400 * 4].forEach((chips, i) => expect(side.expected[i] * 42).toBeCloseTo(chips, 9));
    const r = results(state);
    expect(r.map((x) => x.raw)).toEqual([-100, -300, 400]); // the ten came
    expect(r[0].allInEquity).toBeCloseTo(-100 + (300 * 34) / 42, 9);
    expect(r[1].allInEquity).toBeCloseTo(-300 + (300 * 4 + 400 * 38) / 42, 9);
    expect(r[2].allInEquity).toBeCloseTo(-300 + (300 * 4 + 400 * 4) / 42, 9);
  });

  test("flop all-in against a player drawing dead: every one of the 990 runouts pays the same, adjusted = raw", () => {
    // Quad aces on Ah Ad Ac; 2c3d has no straight flush (it would need the 3c) and nothing better than a full house.
    const state = play(table([100, 100], 0, { deck: riggedDeck(2, 0, ["AsKs", "2c3d"], "AhAdAc5c4c") }), [
      [0, "call"], [1, "check"],
      [1, "raise", 98], [0, "call"],
    ]);
    const [pot] = potEquities(allInSpot(finishedHandRecord(state))!);
    expect(pot.runouts).toBe(binomial(45, 2));
    expect(pot.expected).toEqual([200, 0]);
    expect(results(state)).toEqual([{ seat: 0, raw: 100, allInEquity: 100 }, { seat: 1, raw: -100, allInEquity: -100 }]);
  });

  test("a split pot on every runout: the odd chip goes to the winner nearest the button's left, as dealt and adjusted", () => {
    // Both hold a ten on As Ks Qh Jh: broadway whatever the river; the folded small blind's chip makes the pot 201.
    const deck = riggedDeck(3, 0, ["Tc2d", null, "Td3c"], "AsKsQhJh9d");
    const state = play(table([100, 100, 100], 0, { deck }), [
      [0, "call"], [1, "fold"], [2, "check"],
      [2, "check"], [0, "check"],
      [2, "raise", 98], [0, "call"],
    ]);
    const spot = allInSpot(finishedHandRecord(state))!;
    expect(spot.deadCards.length).toBe(2); // the folded player's cards never come on the board
    const [pot] = potEquities(spot);
    expect(pot.runouts).toBe(52 - 4 - 6);
    expect(pot.amount).toBe(201);
    expect(pot.expected).toEqual([100, 101]); // seat 1 folded: seat 2 is the first winner left of the button
    expect(results(state).map((x) => [x.raw, x.allInEquity])).toEqual([[0, 0], [-1, -1], [1, 1]]);
  });

  test("no adjustment when the hand ends by folds or is decided by river betting", () => {
    const folded = play(table([100, 100], 0), [[0, "raise", 10], [1, "fold"]]);
    expect(allInSpot(finishedHandRecord(folded))).toBeNull();
    expect(results(folded)).toEqual([{ seat: 0, raw: 2, allInEquity: 2 }, { seat: 1, raw: -2, allInEquity: -2 }]);
    const river = play(table([100, 100], 0), [[0, "call"], [1, "check"], [1, "check"], [0, "check"], [1, "check"], [0, "check"], [1, "raise", 98], [0, "call"]]);
    expect(river.result!.shown.length).toBe(2);
    expect(allInSpot(finishedHandRecord(river))).toBeNull();
  });
});

/** Random play that goes all in often: small stacks, and a raise is to the maximum half the time. */
function allInProneAction(legal: NonNullable<ReturnType<typeof legalActions>>, rng: ReturnType<typeof seededRng>): PlayerAction {
  const action = randomLegalAction(legal, rng);
  return action.type === "raise" && uniformInt(rng, 2) === 0 ? { type: "raise", amount: legal.maxRaiseTo } : action;
}

/** `deck` with `runout` moved into the board positions after the first `known` board cards (a card it displaces goes where the runout card was). */
function deckWithRunout(deck: number[], players: number, known: number, runout: number[]): number[] {
  const rigged = deck.slice();
  const boardPositions = [1, 2, 3, 5, 7].map((i) => 2 * players + i);
  runout.forEach((card, i) => {
    const at = boardPositions[known + i], from = rigged.indexOf(card);
    [rigged[at], rigged[from]] = [rigged[from], rigged[at]];
  });
  return rigged;
}

function* subsets(cards: number[], size: number, from = 0): Generator<number[]> {
  if (size === 0) return yield [];
  for (let i = from; i <= cards.length - size; i++) for (const rest of subsets(cards, size - 1, i + 1)) yield [cards[i], ...rest];
}

describe("all-in adjustment: property against brute force", () => {
  test("preflop, three-way with a side pot and odd chips: the same as counting every board with evaluate7 and paying it by hand", () => {
    // Random hands each time the seed changes; odd pot sizes so that split pots leave odd chips.
    const rng = seededRng("all-in-equity preflop");
    const deck = shuffleDeck(rng);
    const spot = { button: 2, seats: [0, 3, 5], holeCards: deck.slice(0, 6), board: [], deadCards: deck.slice(6, 8), pots: [{ amount: 301, eligible: [0, 3, 5] }, { amount: 99, eligible: [3, 5] }] };
    const pots = potEquities(spot);
    const unseen = deck.slice(8).sort((a, b) => a - b);
    const expected = spot.pots.map((pot) => pot.eligible.map(() => 0));
    const n = unseen.length;
    let boards = 0, splits = 0;
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) for (let c = b + 1; c < n; c++) for (let d = c + 1; d < n; d++) for (let e = d + 1; e < n; e++) {
      const board = [unseen[a], unseen[b], unseen[c], unseen[d], unseen[e]] as const;
      const value = [0, 1, 2].map((p) => evaluate7(spot.holeCards[2 * p], spot.holeCards[2 * p + 1], ...board));
      boards++;
      spot.pots.forEach((pot, i) => {
        const values = pot.eligible.map((seat) => value[spot.seats.indexOf(seat)]);
        const best = Math.max(...values);
        const winners = pot.eligible.filter((_, j) => values[j] === best);
        if (winners.length > 1) splits++;
        // Odd chips one each from the button's left: seats after the button first, then from the lowest seat.
        const clockwise = [...winners.filter((seat) => seat > spot.button), ...winners.filter((seat) => seat <= spot.button)];
        clockwise.forEach((seat, k) => {
          expected[i][pot.eligible.indexOf(seat)] += Math.floor(pot.amount / winners.length) + (k < pot.amount % winners.length ? 1 : 0);
        });
      });
    }
    expect(boards).toBe(binomial(44, 5));
    expect(splits).toBeGreaterThan(0); // odd chips were paid
    expect(pots[0].runouts).toBe(boards);
    pots.forEach((pot, i) => pot.expected.forEach((chips, j) => expect(chips).toBeCloseTo(expected[i][j] / boards, 9)));
  });

  test("on random flop and turn all-ins (2-6 players, side pots, folds, odd chips) it equals the mean of the engine's own payouts over every runout", () => {
    const rng = seededRng("all-in-equity property");
    const SPOTS = 60;
    let spots = 0, replays = 0, expectedReplays = 0, sidePotSpots = 0, multiwaySpots = 0, changedSpots = 0, attempts = 0;
    while (spots < SPOTS && attempts < 100_000) {
      attempts++;
      const players = 2 + uniformInt(rng, 5);
      const options: StartHandOptions = {
        seats: Array.from({ length: players }, (_, seatIndex) => ({ seatIndex, stack: 10 + uniformInt(rng, 150) })),
        buttonSeatIndex: uniformInt(rng, players),
        smallBlind: 1,
        bigBlind: 2,
        deck: shuffleDeck(rng),
      };
      const state = startHand(options);
      const actions: PlayerAction[] = [];
      while (!state.finished) {
        const action = allInProneAction(legalActions(state)!, rng);
        actions.push(action);
        applyActionInPlace(state, action);
      }
      const spot = allInSpot(finishedHandRecord(state));
      if (spot === null || spot.board.length < 3) continue;
      spots++;
      if (spot.pots.filter((p) => p.eligible.length >= 2).length >= 2) sidePotSpots++;
      if (spot.seats.length >= 3) multiwaySpots++;
      // Brute force: the same hand replayed by the engine with each runout dealt, final stacks averaged.
      const dealt = new Set([...state.holeCards, ...spot.board]);
      const unseen = Array.from({ length: 52 }, (_, c) => c).filter((c) => !dealt.has(c));
      const totals = new Array<number>(players).fill(0);
      let runouts = 0;
      for (const runout of subsets(unseen, 5 - spot.board.length)) {
        const replay = startHand({ ...options, deck: deckWithRunout(options.deck, players, spot.board.length, runout) });
        for (const action of actions) expect(applyActionInPlace(replay, action).ok).toBe(true);
        expect(replay.finished).toBe(true);
        replay.result!.stacks.forEach((stack, p) => (totals[p] += stack));
        runouts++;
      }
      replays += runouts;
      expectedReplays += binomial(unseen.length, 5 - spot.board.length);
      const adjusted = allInEquityResults(finishedHandRecord(state));
      adjusted.forEach((r, p) => expect(r.allInEquity).toBeCloseTo(totals[p] / runouts - options.seats[p].stack, 9));
      if (adjusted.some((r) => Math.abs(r.allInEquity - r.raw) > 1e-9)) changedSpots++;
    }
    expect(spots).toBe(SPOTS);
    expect(replays).toBe(expectedReplays);
    expect(replays).toBeGreaterThan(SPOTS * 40);
    // The spots exercise what they should (numbers of this seed: printed so a change of seed can be judged).
    console.log(`${spots} spots in ${attempts} hands, ${replays} runouts replayed; ${multiwaySpots} multiway, ${sidePotSpots} with a contested side pot, ${changedSpots} adjusted`);
    expect(sidePotSpots).toBeGreaterThan(0);
    expect(multiwaySpots).toBeGreaterThan(0);
    expect(changedSpots).toBeGreaterThan(SPOTS / 2);
  });
});
