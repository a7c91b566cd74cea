import type { TableConfig } from "@poker-bots/protocol";
import type { SeatRuntime, TableRuntime } from "../tables/runtime";

/**
 * The ledger rule of a reset-stacks table (`resetStacks`: the ACPC's convention, where a game
 * definition fixes every hand's starting stack), written once for every such match:
 * - a seat's chips (`seat.chips`, what the ledger bought in and cashes out) are its **bankroll**:
 *   its buy-in, at least one full stack (checked when the table is created);
 * - every hand starts with `resetStacks` in front of every seat, whatever its bankroll;
 * - a hand's result moves chips between bankrolls (what a seat ends the hand with, minus the stack
 *   it started with), so the bankrolls' sum never changes;
 * - the match ends before a hand that some seat's bankroll cannot cover with a full stack, or that
 *   a leaving bot would sit out, or at the hand limit: the number of players never changes mid-match;
 * - each seat is cashed out its remaining bankroll (never negative: a hand loses at most the stack).
 * Other tables play the chips in front of each seat, and a bot that has none leaves.
 */
export function resetsStacks(config: TableConfig): config is TableConfig & { resetStacks: number } {
  return config.resetStacks !== undefined;
}

/** What the seat starts the next hand with. */
export function handStartingStack(table: TableRuntime, seat: SeatRuntime): number {
  return resetsStacks(table.config) ? table.config.resetStacks : seat.chips;
}

/** The seat's chips after a hand it started with `startingStack` and ended with `endingStack`. */
export function chipsAfterHand(table: TableRuntime, seat: SeatRuntime, startingStack: number, endingStack: number): number {
  return resetsStacks(table.config) ? seat.chips + endingStack - startingStack : endingStack;
}

/** A reset-stacks match goes on only while every seat covers a full stack and none is leaving. */
export function resetStacksMatchOver(table: TableRuntime): boolean {
  if (!resetsStacks(table.config)) return false;
  const stack = table.config.resetStacks;
  for (const seat of table.seats.values()) if (seat.leaving || seat.chips < stack) return true;
  return false;
}

/** Whether a seat leaves the table between hands (other tables: busted or leaving; reset-stacks ones end the match instead). */
export function leavesBetweenHands(table: TableRuntime, seat: SeatRuntime): boolean {
  return !resetsStacks(table.config) && (seat.leaving || seat.chips === 0);
}
