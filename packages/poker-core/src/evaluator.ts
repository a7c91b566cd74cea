/**
 * Hand evaluator for 5, 6 and 7 cards. Returns the class rank of the best five cards:
 * 1..7462, HIGHER IS BETTER (1 = 7-5-4-3-2 offsuit, 7462 = royal flush), equal values tie.
 * No allocation per call: a sum of per-card keys finds flushes (suit counters) and, otherwise,
 * the rank pattern through a perfect hash into a 140 KB table.
 */
import { CATEGORY_NAMES, type HandCategory, categoryOfCode, CATEGORY_SHIFT } from "./evaluator-classes.ts";
import {
  CARD_KEYS,
  CARD_RANK_BITS,
  CATEGORY_FIRST_VALUE,
  CLASS_CODES,
  FLUSH_BITS,
  FLUSH_VALUES,
  HAND_CLASS_COUNT,
  NON_FLUSH_VALUES,
  SUIT_COUNTER_START,
  SUIT_FIELD,
} from "./evaluator-tables.ts";
import { ROW_OFFSETS } from "./evaluator-row-offsets.ts";
import { ROW_SHIFT } from "./evaluator-keys.ts";
import { RANK_CHARS } from "./cards.ts";

export { CATEGORY_NAMES, HAND_CLASS_COUNT, type HandCategory };
// For callers that sum card keys incrementally over many boards (exhaustive counts, all-in equities).
export { CARD_KEYS, CARD_RANK_BITS, FLUSH_VALUES, FLUSH_BITS, SUIT_COUNTER_START };

const INV_SUIT_FIELD = 1 / SUIT_FIELD;

/** Value of a hand that is not a flush, from the sum of its cards' CARD_KEYS (+ SUIT_COUNTER_START). */
export function nonFlushValueOfKey(key: number): number {
  const rankSum = (key * INV_SUIT_FIELD) | 0;
  return NON_FLUSH_VALUES[rankSum + ROW_OFFSETS[rankSum >>> ROW_SHIFT]];
}

/** The suit (0..3) holding five or more cards in this key, or -1. */
export function flushSuitOfKey(key: number): number {
  const flushBits = (key | 0) & FLUSH_BITS;
  return flushBits === 0 ? -1 : (31 - Math.clz32(flushBits)) >> 2;
}

function suitMask(card: number, suit: number): number {
  return (card & 3) === suit ? CARD_RANK_BITS[card] : 0;
}

export function evaluate7(a: number, b: number, c: number, d: number, e: number, f: number, g: number): number {
  const key = SUIT_COUNTER_START + CARD_KEYS[a] + CARD_KEYS[b] + CARD_KEYS[c] + CARD_KEYS[d] + CARD_KEYS[e] + CARD_KEYS[f] + CARD_KEYS[g];
  const flushBits = (key | 0) & FLUSH_BITS;
  if (flushBits !== 0) {
    const s = (31 - Math.clz32(flushBits)) >> 2;
    return FLUSH_VALUES[suitMask(a, s) | suitMask(b, s) | suitMask(c, s) | suitMask(d, s) | suitMask(e, s) | suitMask(f, s) | suitMask(g, s)];
  }
  return nonFlushValueOfKey(key);
}

export function evaluate6(a: number, b: number, c: number, d: number, e: number, f: number): number {
  const key = SUIT_COUNTER_START + CARD_KEYS[a] + CARD_KEYS[b] + CARD_KEYS[c] + CARD_KEYS[d] + CARD_KEYS[e] + CARD_KEYS[f];
  const flushBits = (key | 0) & FLUSH_BITS;
  if (flushBits !== 0) {
    const s = (31 - Math.clz32(flushBits)) >> 2;
    return FLUSH_VALUES[suitMask(a, s) | suitMask(b, s) | suitMask(c, s) | suitMask(d, s) | suitMask(e, s) | suitMask(f, s)];
  }
  return nonFlushValueOfKey(key);
}

export function evaluate5(a: number, b: number, c: number, d: number, e: number): number {
  const key = SUIT_COUNTER_START + CARD_KEYS[a] + CARD_KEYS[b] + CARD_KEYS[c] + CARD_KEYS[d] + CARD_KEYS[e];
  if (((key | 0) & FLUSH_BITS) !== 0) {
    return FLUSH_VALUES[CARD_RANK_BITS[a] | CARD_RANK_BITS[b] | CARD_RANK_BITS[c] | CARD_RANK_BITS[d] | CARD_RANK_BITS[e]];
  }
  return nonFlushValueOfKey(key);
}

/** Any 5, 6 or 7 distinct cards. */
export function evaluateCards(cards: ArrayLike<number>): number {
  switch (cards.length) {
    case 5: return evaluate5(cards[0], cards[1], cards[2], cards[3], cards[4]);
    case 6: return evaluate6(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5]);
    case 7: return evaluate7(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6]);
    default: throw new Error(`can evaluate 5, 6 or 7 cards, got ${cards.length}`);
  }
}

export function categoryIndex(value: number): number {
  let category = 0;
  while (value >= CATEGORY_FIRST_VALUE[category + 1]) category++;
  return category;
}

export function handCategory(value: number): HandCategory {
  if (!(value >= 1 && value <= HAND_CLASS_COUNT)) throw new Error(`invalid hand value ${value}`);
  return CATEGORY_NAMES[categoryIndex(value)];
}

const RANK_NAMES = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"];
const RANK_PLURALS = RANK_NAMES.map((name) => (name === "six" ? "sixes" : name + "s"));

function ranksOfMask(mask: number): number[] {
  const ranks: number[] = [];
  for (let r = 12; r >= 0; r--) if (mask & (1 << r)) ranks.push(r);
  return ranks;
}

/** For humans: "full house, kings full of sevens", "one pair of aces, K-9-4 kickers". */
export function describeHand(value: number): string {
  const strengthCode = CLASS_CODES[value];
  const tiebreak = strengthCode % (1 << CATEGORY_SHIFT);
  const cardsOf = (mask: number) => ranksOfMask(mask).map((r) => RANK_CHARS[r]).join("-");
  switch (CATEGORY_NAMES[categoryOfCode(strengthCode)]) {
    case "straight_flush":
      return tiebreak === 12 ? "royal flush" : `straight flush, ${RANK_NAMES[tiebreak]} high`;
    case "four_of_a_kind":
      return `four ${RANK_PLURALS[tiebreak >> 4]}, ${RANK_CHARS[tiebreak & 15]} kicker`;
    case "full_house":
      return `full house, ${RANK_PLURALS[tiebreak >> 4]} full of ${RANK_PLURALS[tiebreak & 15]}`;
    case "flush":
      return `flush, ${cardsOf(tiebreak)}`;
    case "straight":
      return `straight, ${RANK_NAMES[tiebreak]} high`;
    case "three_of_a_kind":
      return `three ${RANK_PLURALS[tiebreak >> 13]}, ${cardsOf(tiebreak & 8191)} kickers`;
    case "two_pair": {
      const [high, low] = ranksOfMask(tiebreak >> 13);
      return `two pair, ${RANK_PLURALS[high]} and ${RANK_PLURALS[low]}, ${cardsOf(tiebreak & 8191)} kicker`;
    }
    case "one_pair":
      return `pair of ${RANK_PLURALS[tiebreak >> 13]}, ${cardsOf(tiebreak & 8191)} kickers`;
    default:
      return `high card, ${cardsOf(tiebreak)}`;
  }
}
