import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { vectorsDir } from "../support/vectors.ts";
import { formatCard, parseCard, parseCards } from "@poker-bots/core/cards";
import {
  CARD_KEYS,
  CATEGORY_NAMES,
  HAND_CLASS_COUNT,
  categoryIndex,
  describeHand,
  evaluate5,
  evaluate6,
  evaluate7,
  evaluateCards,
  handCategory,
  nonFlushValueOfKey,
} from "@poker-bots/core/evaluator";
import { FLUSH_BITS, SUIT_COUNTER_START } from "@poker-bots/core/evaluator-tables";

const checks = await Bun.file(join(vectorsDir(), "evaluator-checks.json")).json();

const value = (text: string) => evaluateCards(parseCards(text));

describe("five-card hands, all 2,598,960", () => {
  const total = 2598960;
  const values = new Uint16Array(total);
  const combos = new Uint8Array(total * 5);
  let n = 0;
  for (let a = 0; a < 48; a++)
    for (let b = a + 1; b < 49; b++)
      for (let c = b + 1; c < 50; c++)
        for (let d = c + 1; d < 51; d++)
          for (let e = d + 1; e < 52; e++) {
            values[n] = evaluate5(a, b, c, d, e);
            combos.set([a, b, c, d, e], n * 5);
            n++;
          }

  test("category counts and 7,462 distinct values", () => {
    expect(n).toBe(total);
    const perCategory = new Array(9).fill(0);
    const classesPerCategory = new Array(9).fill(0);
    const seen = new Uint8Array(HAND_CLASS_COUNT + 1);
    for (let i = 0; i < total; i++) {
      perCategory[categoryIndex(values[i])]++;
      if (!seen[values[i]]) {
        seen[values[i]] = 1;
        classesPerCategory[categoryIndex(values[i])]++;
      }
    }
    const expected = checks.five_card.by_category;
    expect(perCategory).toEqual([
      expected.high_card, expected.one_pair, expected.two_pair, expected.three_of_a_kind, expected.straight,
      expected.flush, expected.full_house, expected.four_of_a_kind, expected.straight_flush_incl_royal,
    ]);
    expect(seen.reduce((sum, x) => sum + x, 0)).toBe(checks.five_card.distinct_classes);
    expect(Object.fromEntries(CATEGORY_NAMES.map((name, i) => [name, classesPerCategory[i]]))).toEqual(checks.five_card.classes_by_category);
  });

  test("pokerkit md5 of all hands stably sorted weakest first", () => {
    const starts = new Int32Array(HAND_CLASS_COUNT + 2);
    for (let i = 0; i < total; i++) starts[values[i] + 1]++;
    for (let v = 1; v <= HAND_CLASS_COUNT + 1; v++) starts[v] += starts[v - 1];
    const order = new Int32Array(total);
    for (let i = 0; i < total; i++) order[starts[values[i]]++] = i;
    const names = Array.from({ length: 52 }, (_, card) => formatCard(card));
    const bytes = new Uint8Array(total * 11 - 1);
    let p = 0;
    for (let k = 0; k < total; k++) {
      if (k > 0) bytes[p++] = 10;
      for (let j = 0; j < 5; j++) {
        const name = names[combos[order[k] * 5 + j]];
        bytes[p++] = name.charCodeAt(0);
        bytes[p++] = name.charCodeAt(1);
      }
    }
    expect(createHash("md5").update(bytes).digest("hex")).toBe(checks.pokerkit_sorted_5card_md5.value);
  });
});

test("six-card category counts over all 20,358,520 hands", () => {
  const counts = new Array(9).fill(0);
  const hits = new Float64Array(HAND_CLASS_COUNT + 1);
  for (let a = 0; a < 47; a++)
    for (let b = a + 1; b < 48; b++)
      for (let c = b + 1; c < 49; c++)
        for (let d = c + 1; d < 50; d++) {
          const kd = SUIT_COUNTER_START + CARD_KEYS[a] + CARD_KEYS[b] + CARD_KEYS[c] + CARD_KEYS[d];
          for (let e = d + 1; e < 51; e++) {
            const ke = kd + CARD_KEYS[e];
            for (let f = e + 1; f < 52; f++) {
              const key = ke + CARD_KEYS[f];
              hits[((key | 0) & FLUSH_BITS) === 0 ? nonFlushValueOfKey(key) : evaluate6(a, b, c, d, e, f)]++;
            }
          }
        }
  for (let v = 1; v <= HAND_CLASS_COUNT; v++) counts[categoryIndex(v)] += hits[v];
  expect(counts).toEqual(checks.six_card.by_category_high_card_to_straight_flush);
});

describe("named hands", () => {
  test("phevaluator examples (rank = 7463 - value)", () => {
    const examples = checks.phevaluator_examples.filter((x: any) => x.cards);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(7463 - evaluateCards(example.cards.map(parseCard))).toBe(example.rank);
    }
  });
  test("wheel is the lowest straight, steel wheel the lowest straight flush", () => {
    expect(handCategory(value("Ac2d3h4s5c"))).toBe("straight");
    expect(value("Ac2d3h4s5c")).toBeLessThan(value("2d3h4s5c6d"));
    expect(value("Ac2c3c4c5c")).toBeLessThan(value("2c3c4c5c6c"));
    expect(handCategory(value("Ac2c3c4c5c"))).toBe("straight_flush");
    expect(handCategory(value("AsKsQsJsTs"))).toBe("straight_flush");
    expect(describeHand(value("AsKsQsJsTs"))).toBe("royal flush");
    expect(handCategory(value("KcAd2h3s4c"))).toBe("high_card"); // no wrap-around straights
    expect(value("Ac2d3h4s5c9d9h")).toBe(value("Ac2d3h4s5c")); // the pair does not beat the straight
  });
  test("counterfeited two pair: 88 on K-K-J-J board loses to an ace kicker", () => {
    const board = "KcJsJcKh2d";
    expect(value("8s8h" + board)).toBeLessThan(value("As3h" + board));
    expect(value("8s8h" + board)).toBe(value("8c3d" + board)); // the pocket pair is worth one eight
  });
  test("three pairs play the best two plus the best kicker", () => {
    expect(value("AcAdKcKdQcQd2h")).toBe(value("AcAdKcKdQh"));
    expect(handCategory(value("AcAdKcKdQcQd2h"))).toBe("two_pair");
    expect(value("2c2d3c3dAhAs4h")).toBe(value("AhAs3c3d4h"));
  });
  test("kickers that do not play", () => {
    expect(value("5c9d" + "7h7sAdJcTd")).toBe(value("2c9h" + "7h7sAdJcTd"));
    expect(value("5c9d" + "7h7sAdJcTd")).toBe(value("5c3h" + "7h7sAdJcTd")); // 77 A-J-T both
    expect(value("KcQd2h2s2d2c3h")).toBeGreaterThan(value("QcJd2h2s2d2c3h")); // quad kicker plays
  });
  test("board plays: two different holdings tie", () => {
    expect(value("2c3c" + "6d7h8s9cTd")).toBe(value("AhKh" + "6d7h8s9cTd"));
    expect(value("AdQc" + "As5s9s2s3d")).toBeLessThan(value("4dAh" + "As5s9s2s3d"));
  });
  test("full house beats flush in six and seven cards; trips + trips make a full house", () => {
    expect(handCategory(value("AhAdAsKhKd2h"))).toBe("full_house");
    expect(handCategory(value("7c7d7h5c5d5hAs"))).toBe("full_house");
    expect(value("7c7d7h5c5d5hAs")).toBe(value("7c7d7h5c5d"));
  });
  test("array and positional forms agree; describeHand reads naturally", () => {
    const cards = parseCards("9c4c4s9d4hQc6c");
    expect(evaluate7(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6])).toBe(evaluateCards(cards));
    expect(describeHand(evaluateCards(cards))).toBe("full house, fours full of nines");
    expect(describeHand(value("AsAd9c4h2c"))).toBe("pair of aces, 9-4-2 kickers");
  });
});

describe("exhaustive equity", () => {
  // Showdown results of two hole-card pairs over every 5-card board from the remaining 48 cards.
  function headsUp(first: number[], second: number[]): [number, number, number] {
    const dead = new Set([...first, ...second]);
    const rest = Array.from({ length: 52 }, (_, c) => c).filter((c) => !dead.has(c));
    const [f0, f1] = first, [s0, s1] = second;
    let firstWins = 0, secondWins = 0, ties = 0;
    for (let i = 0; i < 48; i++)
      for (let j = i + 1; j < 48; j++)
        for (let k = j + 1; k < 48; k++)
          for (let l = k + 1; l < 48; l++)
            for (let m = l + 1; m < 48; m++) {
              const [a, b, c, d, e] = [rest[i], rest[j], rest[k], rest[l], rest[m]];
              const x = evaluate7(f0, f1, a, b, c, d, e), y = evaluate7(s0, s1, a, b, c, d, e);
              if (x > y) firstWins++; else if (y > x) secondWins++; else ties++;
            }
    return [firstWins, secondWins, ties];
  }

  test("AA vs KK: one suit combination exactly, and the 36 combinations add up to OMPEval's totals", () => {
    // Up to suit relabelling there are three cases: KK shares no suit with AA (6 of 36 combos),
    // one suit (24), both suits (6).
    const disjoint = headsUp(parseCards("AcAd"), parseCards("KhKs"));
    const oneShared = headsUp(parseCards("AcAd"), parseCards("KcKh"));
    const bothShared = headsUp(parseCards("AcAd"), parseCards("KcKd"));
    expect(disjoint.reduce((s, x) => s + x)).toBe(1712304);
    expect(disjoint).toEqual([1388072, 317694, 6538]);
    const sum = [0, 1, 2].map((i) => 6 * disjoint[i] + 24 * oneShared[i] + 6 * bothShared[i]);
    const expected = checks.equity_enumerations[0];
    expect(sum).toEqual([expected.AA_wins, expected.KK_wins, expected.ties]);
  });

  test("OMPEval three-way case on 5d5h5c with 3s3c dead: 820 boards", () => {
    const spec = checks.equity_enumerations[1];
    const hands = spec.hands.map(parseCards);
    const board = parseCards(spec.board);
    const dead = new Set([...hands.flat(), ...board, ...parseCards(spec.dead)]);
    const rest = Array.from({ length: 52 }, (_, c) => c).filter((c) => !dead.has(c));
    const byMask = new Array(8).fill(0);
    for (let i = 0; i < rest.length; i++)
      for (let j = i + 1; j < rest.length; j++) {
        const values = hands.map((h: number[]) => evaluate7(h[0], h[1], board[0], board[1], board[2], rest[i], rest[j]));
        const best = Math.max(...values);
        byMask[values.reduce((mask: number, v: number, p: number) => (v === best ? mask | (1 << p) : mask), 0)]++;
      }
    expect(byMask.reduce((s, x) => s + x)).toBe(spec.total);
    expect(byMask).toEqual(spec.winsByPlayerMask_0_to_7);
  });
});
