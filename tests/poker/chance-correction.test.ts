import { describe, expect, test } from "bun:test";
import { finishedHandRecord, potEquities } from "../../src/poker/all-in-equity.ts";
import { parseCards } from "@poker-bots/core/cards";
import { cardLuck, chanceCorrectedResults, LUCK_WEIGHT, luckyCards } from "../../src/poker/chance-correction.ts";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand.ts";
import { seededRng, shuffleDeck, uniformInt } from "@poker-bots/core/rng";
import { randomLegalAction } from "../../src/poker/simulate.ts";
import { play, riggedDeck, table } from "./helpers.ts";

describe("chance correction", () => {
  test("a hand checked down from the flop: the turn's and river's luck, each the move of equity in the pot times its weight", () => {
    // 10 each preflop, 20 each on the flop, then checked down: pot 60 on As Kd 7c. The river 7 gives the sevens a set.
    const state = play(table([200, 200], 0, { deck: riggedDeck(2, 0, ["AhQh", "7s6s"], "AsKd7c2d7h") }), [
      [0, "raise", 10], [1, "call"],
      [1, "raise", 20], [0, "call"],
      [1, "check"], [0, "check"],
      [1, "check"], [0, "check"],
    ]);
    const record = finishedHandRecord(state);
    expect(luckyCards(record).map((c) => c.board.length)).toEqual([4, 5]);
    const spotOn = (board: string) => ({ button: 0, seats: [0, 1], holeCards: parseCards("AhQh7s6s"), board: parseCards(board), deadCards: [], pots: [{ amount: 60, eligible: [0, 1] }] });
    const [flop] = potEquities(spotOn("AsKd7c")), [turn] = potEquities(spotOn("AsKd7c2d"));
    const [aces, sevens] = chanceCorrectedResults(record);
    expect([aces.raw, sevens.raw]).toEqual([-30, 30]);
    expect([aces.allInEquity, sevens.allInEquity]).toEqual([-30, 30]); // no all-in: nothing for the all-in adjustment
    // The river 7 pays the sevens all 60: their river luck is 60 − their turn equity, the turn's 2d their turn − flop equity.
    const sevensLuck = LUCK_WEIGHT.turn * (turn.expected[1] - flop.expected[1]) + LUCK_WEIGHT.river * (60 - turn.expected[1]);
    expect(sevens.corrected).toBeCloseTo(30 - sevensLuck, 9);
    expect(aces.corrected).toBeCloseTo(-30 + sevensLuck, 9);
  });

  test("no lucky card when the hand ends before the turn, and none for an all-in runout (the all-in adjustment has it)", () => {
    const folded = chanceCorrectedResults(finishedHandRecord(play(table([100, 100], 0), [[0, "raise", 10], [1, "fold"]])));
    expect(folded.map((r) => r.corrected)).toEqual([2, -2]);
    const allIn = finishedHandRecord(play(table([100, 100], 0), [[0, "call"], [1, "check"], [1, "raise", 98], [0, "call"]]));
    expect(luckyCards(allIn)).toEqual([]);
    expect(chanceCorrectedResults(allIn).map((r) => r.corrected)).toEqual(chanceCorrectedResults(allIn).map((r) => r.allInEquity));
  });

  test("unbiased: on random hands, each lucky card's luck averages to exactly 0 over every card that could have come", () => {
    const rng = seededRng("chance-correction property");
    const HANDS = 100;
    let cardsChecked = 0, alternatives = 0, multiway = 0, sidePots = 0;
    for (let h = 0; h < HANDS; h++) {
      const players = 2 + uniformInt(rng, 4);
      const state = startHand({
        seats: Array.from({ length: players }, (_, seatIndex) => ({ seatIndex, stack: 40 + uniformInt(rng, 400) })),
        buttonSeatIndex: uniformInt(rng, players),
        smallBlind: 1,
        bigBlind: 2,
        ante: uniformInt(rng, 2),
        deck: shuffleDeck(rng),
      });
      while (!state.finished) applyActionInPlace(state, randomLegalAction(legalActions(state)!, rng));
      const record = finishedHandRecord(state);
      const results = chanceCorrectedResults(record);
      expect(results.reduce((sum, r) => sum + r.corrected, 0)).toBeCloseTo(0, 6);
      for (const { spot } of luckyCards(record)) {
        cardsChecked++;
        if (spot.seats.length >= 3) multiway++;
        if (spot.pots.filter((p) => p.eligible.length >= 2).length >= 2) sidePots++;
        const seen = new Set([...spot.holeCards, ...spot.board, ...spot.deadCards]);
        const total = new Array<number>(spot.seats.length).fill(0);
        let count = 0;
        for (let card = 0; card < 52; card++) {
          if (seen.has(card)) continue;
          cardLuck(spot, [...spot.board, card]).forEach((x, j) => (total[j] += x));
          count++;
        }
        alternatives += count;
        for (const x of total) expect(x / count).toBeCloseTo(0, 9);
      }
    }
    console.log(`${cardsChecked} lucky cards in ${HANDS} hands, ${alternatives} alternatives; ${multiway} multiway, ${sidePots} with a contested side pot`);
    expect(cardsChecked).toBeGreaterThan(HANDS / 3);
    expect(multiway).toBeGreaterThan(0);
  });
});
