/**
 * Pure helpers for a match: which seats play the next hand, where the button goes, who busted,
 * and when the match is over. Stacks are indexed by table seat; 0 (or absent) = no chips.
 *
 * Button rule ("moving button"): the button moves to the next seat, clockwise from the previous
 * button, that still holds chips. Busted seats are skipped, so no dead button or dead small blind.
 */

export interface SeatStack {
  seatIndex: number;
  stack: number;
}

/** Seats with chips, in table order (ascending seat index). */
export function seatsInPlay(stacks: readonly number[]): SeatStack[] {
  const seats: SeatStack[] = [];
  stacks.forEach((stack, seatIndex) => {
    if (stack > 0) seats.push({ seatIndex, stack });
  });
  return seats;
}

/** First hand (previousButton null): the first seat in play. */
export function nextButton(stacks: readonly number[], previousButton: number | null): number {
  const n = stacks.length;
  const start = previousButton === null ? n - 1 : previousButton;
  for (let i = 1; i <= n; i++) {
    const seat = (start + i) % n;
    if (stacks[seat] > 0) return seat;
  }
  throw new Error("no seat holds chips");
}

/** Seats that started the hand with chips and ended it with none. */
export function bustedSeats(before: readonly number[], after: readonly number[]): number[] {
  const busted: number[] = [];
  before.forEach((stack, seat) => {
    if (stack > 0 && !(after[seat] > 0)) busted.push(seat);
  });
  return busted;
}

export type MatchEnd = { over: false } | { over: true; reason: "one_player_left" | "hand_limit"; winners: number[] };

/** Over when one seat holds every chip, or after maxHands hands. Winners = seats with the most chips. */
export function matchStatus(stacks: readonly number[], handsPlayed: number, maxHands: number): MatchEnd {
  const inPlay = seatsInPlay(stacks);
  const chipLeaders = () => {
    const most = Math.max(...stacks);
    return inPlay.filter((s) => s.stack === most).map((s) => s.seatIndex);
  };
  if (inPlay.length <= 1) return { over: true, reason: "one_player_left", winners: chipLeaders() };
  if (handsPlayed >= maxHands) return { over: true, reason: "hand_limit", winners: chipLeaders() };
  return { over: false };
}

/** Stacks by seat after a finished hand, from the hand's seats and final stacks. */
export function stacksAfterHand(previous: readonly number[], seats: readonly number[], finalStacks: readonly number[]): number[] {
  const stacks = previous.slice();
  for (let i = 0; i < seats.length; i++) stacks[seats[i]] = finalStacks[i];
  return stacks;
}
