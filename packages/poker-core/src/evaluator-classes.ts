/**
 * The slow, obviously-correct side of the evaluator: the strength of the best five-card hand in a
 * rank multiset (or a one-suit rank mask), as a "strength code" = category << 26 | tiebreak bits.
 * Codes order hands correctly but are sparse; evaluator-tables.ts turns them into dense class
 * ranks 1..7462. Used only while building tables, never per evaluation.
 */

export const CATEGORY_NAMES = [
  "high_card",
  "one_pair",
  "two_pair",
  "three_of_a_kind",
  "straight",
  "flush",
  "full_house",
  "four_of_a_kind",
  "straight_flush",
] as const;
export type HandCategory = (typeof CATEGORY_NAMES)[number];

export const CATEGORY_SHIFT = 26;
const HIGH_CARD = 0, ONE_PAIR = 1, TWO_PAIR = 2, TRIPS = 3, STRAIGHT = 4, FLUSH = 5, FULL_HOUSE = 6, QUADS = 7, STRAIGHT_FLUSH = 8;

const ACE = 12;
const WHEEL_MASK = (1 << ACE) | 0b1111;

function highestBit(mask: number): number {
  return 31 - Math.clz32(mask);
}

/** The mask of the n highest set bits of mask. */
function topBits(mask: number, n: number): number {
  let kept = 0;
  for (let i = 0; i < n && mask !== 0; i++) {
    const bit = 1 << highestBit(mask);
    kept |= bit;
    mask &= ~bit;
  }
  return kept;
}

/** Rank index of the top card of the best straight in the mask (3 = five-high wheel), or -1. */
export function straightHigh(rankMask: number): number {
  for (let high = ACE; high >= 4; high--) {
    const run = 0b11111 << (high - 4);
    if ((rankMask & run) === run) return high;
  }
  return (rankMask & WHEEL_MASK) === WHEEL_MASK ? 3 : -1;
}

function code(category: number, tiebreak: number): number {
  return category * (1 << CATEGORY_SHIFT) + tiebreak;
}

/** Best five cards of any suit pattern that is not a flush; counts[r] = cards of rank r (≤ 4). */
export function nonFlushStrengthCode(counts: ArrayLike<number>): number {
  let atLeast1 = 0, atLeast2 = 0, atLeast3 = 0, atLeast4 = 0;
  for (let r = 0; r < 13; r++) {
    if (counts[r] >= 1) atLeast1 |= 1 << r;
    if (counts[r] >= 2) atLeast2 |= 1 << r;
    if (counts[r] >= 3) atLeast3 |= 1 << r;
    if (counts[r] >= 4) atLeast4 |= 1 << r;
  }
  if (atLeast4 !== 0) {
    const quad = highestBit(atLeast4);
    return code(QUADS, quad * 16 + highestBit(atLeast1 & ~(1 << quad)));
  }
  if (atLeast3 !== 0) {
    const trips = highestBit(atLeast3);
    const pairs = atLeast2 & ~(1 << trips);
    if (pairs !== 0) return code(FULL_HOUSE, trips * 16 + highestBit(pairs));
  }
  const straight = straightHigh(atLeast1);
  if (straight >= 0) return code(STRAIGHT, straight);
  if (atLeast3 !== 0) {
    const trips = highestBit(atLeast3);
    return code(TRIPS, (trips << 13) | topBits(atLeast1 & ~(1 << trips), 2));
  }
  if (atLeast2 !== 0 && (atLeast2 & (atLeast2 - 1)) !== 0) {
    const twoPairs = topBits(atLeast2, 2);
    return code(TWO_PAIR, (twoPairs << 13) | topBits(atLeast1 & ~twoPairs, 1));
  }
  if (atLeast2 !== 0) {
    const pair = highestBit(atLeast2);
    return code(ONE_PAIR, (pair << 13) | topBits(atLeast1 & ~(1 << pair), 3));
  }
  return code(HIGH_CARD, topBits(atLeast1, 5));
}

/** Best five cards among the ranks of one suit (mask has ≥ 5 bits). */
export function flushStrengthCode(suitRankMask: number): number {
  const straight = straightHigh(suitRankMask);
  if (straight >= 0) return code(STRAIGHT_FLUSH, straight);
  return code(FLUSH, topBits(suitRankMask, 5));
}

export function categoryOfCode(strengthCode: number): number {
  return Math.floor(strengthCode / (1 << CATEGORY_SHIFT));
}

function forEachRankMultiset(size: number, visit: (counts: number[]) => void): void {
  const counts = new Array<number>(13).fill(0);
  const place = (rank: number, left: number): void => {
    if (rank === 13) {
      if (left === 0) visit(counts);
      return;
    }
    for (let m = 0; m <= 4 && m <= left; m++) {
      counts[rank] = m;
      place(rank + 1, left - m);
    }
    counts[rank] = 0;
  };
  place(0, size);
}

/** Every distinct five-card hand class as a strength code, weakest first (7,462 of them). */
export function allFiveCardClassCodes(): number[] {
  const codes = new Set<number>();
  forEachRankMultiset(5, (counts) => codes.add(nonFlushStrengthCode(counts)));
  for (let mask = 0; mask < 1 << 13; mask++) {
    if (popcount(mask) === 5) codes.add(flushStrengthCode(mask));
  }
  return [...codes].sort((x, y) => x - y);
}

export function popcount(mask: number): number {
  let n = 0;
  for (; mask !== 0; mask &= mask - 1) n++;
  return n;
}

export { forEachRankMultiset };
