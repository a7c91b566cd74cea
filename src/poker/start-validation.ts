/** Checks on startHand's options: seats, button, blinds, antes and deck. */
import type { StartHandOptions } from "./hand-types.ts";
import { invariant, invariantViolated } from "../lib/assert.ts";

/** Two hole cards each, then three burns and five board cards. */
export function cardsDealtAtMost(playerCount: number): number {
  return 2 * playerCount + 8;
}

function isWholeNumber(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 0;
}

/** The first `count` cards are valid ids (0..51) and distinct. */
function hasDistinctCards(cards: number[], count: number): boolean {
  // 52 bits of "seen" across two 32-bit words, without a branch per card (a shuffled deck makes
  // any branch on the card's value unpredictable). `card & 63` differs from anything that is not
  // an integer in 0..63 (NaN, fractions, negatives, non-numbers).
  let low = 0, high = 0, repeated = 0, invalid = 0;
  for (let i = 0; i < count; i++) {
    const card = cards[i];
    const id = card & 63;
    invalid |= (id !== card ? 1 : 0) | (id >= 52 ? 1 : 0);
    const bit = 1 << (id & 31);
    const inHigh = -(id >> 5); // 0 or -1
    const highBit = bit & inHigh, lowBit = bit & ~inHigh;
    repeated |= (low & lowBit) | (high & highBit);
    low |= lowBit;
    high |= highBit;
  }
  return invalid === 0 && repeated === 0;
}

/** Validates the options; returns the button's player index. */
export function validateStart(options: StartHandOptions): number {
  const { seats, smallBlind, bigBlind, deck } = options;
  invariant(seats.length >= 2, "a hand needs at least two players");
  let button = -1;
  for (let i = 0; i < seats.length; i++) {
    const seat = seats[i];
    if (!(isWholeNumber(seat.stack) && seat.stack > 0)) invariantViolated("every player needs a positive whole-chip stack");
    if (i > 0 && !(seat.seatIndex > seats[i - 1].seatIndex)) invariantViolated("seats must be in table order (ascending seat index)");
    if (seat.seatIndex === options.buttonSeatIndex) button = i;
  }
  invariant(button >= 0, "the button must be on an occupied seat");
  invariant(isWholeNumber(smallBlind) && isWholeNumber(bigBlind) && bigBlind > 0 && smallBlind <= bigBlind, "invalid blinds");
  // Only the cards the hand can deal are kept (and checked): the rest of the deck is never read.
  const dealt = cardsDealtAtMost(seats.length);
  invariant(deck.length >= dealt && hasDistinctCards(deck, dealt), "deck too short, or with invalid or repeated cards");
  return button;
}

/** One validated ante per player (table order). */
export function antesOf(options: StartHandOptions): number[] {
  const ante = options.ante ?? 0;
  const n = options.seats.length;
  let antes: number[];
  if (Array.isArray(ante)) antes = ante.slice();
  else {
    antes = []; // push, not fill: Array.prototype.fill on a fresh array is a slow native call
    for (let p = 0; p < n; p++) antes.push(ante);
  }
  let valid = antes.length === n;
  for (let p = 0; valid && p < n; p++) valid = isWholeNumber(antes[p]);
  invariant(valid, "invalid antes");
  return antes;
}
