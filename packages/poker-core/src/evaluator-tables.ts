/**
 * Lookup tables for the evaluator, built once at module load (~tens of ms, no I/O) — or handed in
 * already built (see `PrebuiltEvaluatorTables`).
 * A hand value is the dense class rank 1..7462 of the best five cards: 1 = 7-5-4-3-2 high card,
 * 7462 = royal flush; higher is better, equal means a tie.
 */
import {
  allFiveCardClassCodes,
  categoryOfCode,
  CATEGORY_NAMES,
  flushStrengthCode,
  forEachRankMultiset,
  nonFlushStrengthCode,
  popcount,
} from "./evaluator-classes.ts";
import { RANK_KEYS, ROW_SHIFT, rankKeySum } from "./evaluator-keys.ts";
import { ROW_OFFSETS } from "./evaluator-row-offsets.ts";

export const HAND_CLASS_COUNT = 7462;
/** A card's combined key: rank key × 2^16 + a suit counter nibble (exact in a double). */
export const SUIT_FIELD = 65536;
/** Each suit counter starts at 3, so a nibble reaches 8 (bit 3) exactly when the suit has 5 cards. */
export const SUIT_COUNTER_START = 0x3333;
export const FLUSH_BITS = 0x8888;

/**
 * The built tables. A host that has them already may hand a copy in as
 * `globalThis.__pokerEvaluatorTables` before this module loads: the hosted-bot sandbox does, since
 * an interpreter (QuickJS) takes ~1 s to build what a JIT builds in milliseconds. The global is
 * taken and removed at load; without it the tables are built here.
 */
export interface PrebuiltEvaluatorTables {
  classCodes: Float64Array;
  categoryFirstValue: Int32Array;
  cardKeys: Float64Array;
  cardRankBits: Int32Array;
  flushValues: Uint16Array;
  nonFlushValues: Uint16Array;
}

const handedIn = (globalThis as { __pokerEvaluatorTables?: PrebuiltEvaluatorTables }).__pokerEvaluatorTables;
delete (globalThis as { __pokerEvaluatorTables?: PrebuiltEvaluatorTables }).__pokerEvaluatorTables;

/** Strength codes of the classes in rank order: CLASS_CODES[value] (index 0 unused). */
export const CLASS_CODES = handedIn?.classCodes ?? new Float64Array(HAND_CLASS_COUNT + 1);
/** First value of each category, then HAND_CLASS_COUNT + 1. */
export const CATEGORY_FIRST_VALUE = handedIn?.categoryFirstValue ?? new Int32Array(CATEGORY_NAMES.length + 1);
export const CARD_KEYS = handedIn?.cardKeys ?? new Float64Array(52);
export const CARD_RANK_BITS = handedIn?.cardRankBits ?? new Int32Array(52);
export const FLUSH_VALUES = handedIn?.flushValues ?? new Uint16Array(1 << 13);

function buildClassRanks(): Map<number, number> {
  const codes = allFiveCardClassCodes();
  if (codes.length !== HAND_CLASS_COUNT) throw new Error(`expected 7462 hand classes, built ${codes.length}`);
  const rankOfCode = new Map<number, number>();
  let category = -1;
  codes.forEach((strengthCode, index) => {
    const value = index + 1;
    rankOfCode.set(strengthCode, value);
    CLASS_CODES[value] = strengthCode;
    while (category < categoryOfCode(strengthCode)) CATEGORY_FIRST_VALUE[++category] = value;
  });
  CATEGORY_FIRST_VALUE[CATEGORY_NAMES.length] = HAND_CLASS_COUNT + 1;
  return rankOfCode;
}

function perfectHash(keySum: number): number {
  return keySum + ROW_OFFSETS[keySum >>> ROW_SHIFT];
}

function buildNonFlushTable(rankOfCode: Map<number, number>): Uint16Array {
  const entries: number[] = [];
  for (const size of [5, 6, 7]) {
    forEachRankMultiset(size, (counts) => {
      entries.push(perfectHash(rankKeySum(counts)), rankOfCode.get(nonFlushStrengthCode(counts))!);
    });
  }
  let size = 0;
  for (let i = 0; i < entries.length; i += 2) size = Math.max(size, entries[i] + 1);
  const table = new Uint16Array(size);
  for (let i = 0; i < entries.length; i += 2) {
    if (table[entries[i]] !== 0) throw new Error("evaluator perfect hash collision: regenerate row offsets");
    table[entries[i]] = entries[i + 1];
  }
  return table;
}

function buildFlushTable(rankOfCode: Map<number, number>): void {
  for (let mask = 0; mask < 1 << 13; mask++) {
    if (popcount(mask) >= 5) FLUSH_VALUES[mask] = rankOfCode.get(flushStrengthCode(mask))!;
  }
}

function buildCardKeys(): void {
  for (let card = 0; card < 52; card++) {
    CARD_KEYS[card] = RANK_KEYS[card >> 2] * SUIT_FIELD + (1 << (4 * (card & 3)));
    CARD_RANK_BITS[card] = 1 << (card >> 2);
  }
}

function buildAll(): Uint16Array {
  const rankOfCode = buildClassRanks();
  const nonFlush = buildNonFlushTable(rankOfCode);
  buildFlushTable(rankOfCode);
  buildCardKeys();
  return nonFlush;
}

export const NON_FLUSH_VALUES = handedIn?.nonFlushValues ?? buildAll();

/** The tables as one object, for a host to hand to another runtime (copies travel, these stay). */
export const EVALUATOR_TABLES: PrebuiltEvaluatorTables = {
  classCodes: CLASS_CODES,
  categoryFirstValue: CATEGORY_FIRST_VALUE,
  cardKeys: CARD_KEYS,
  cardRankBits: CARD_RANK_BITS,
  flushValues: FLUSH_VALUES,
  nonFlushValues: NON_FLUSH_VALUES,
};

export { perfectHash };
