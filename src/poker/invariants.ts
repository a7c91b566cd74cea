import type { HandState } from "./hand-types.ts";
import { invariantViolated } from "../lib/assert.ts";


/** Every chip is either behind a player or contributed to this hand; no stack is negative. */
export function assertChipsConserved(state: HandState): void {
  const { stacks, startingStacks, contributions } = state;
  let start = 0, now = 0, lowest = 0;
  if (state.finished) {
    for (let p = 0; p < stacks.length; p++) {
      start += startingStacks[p];
      now += stacks[p];
      lowest = stacks[p] < lowest ? stacks[p] : lowest;
    }
  } else {
    for (let p = 0; p < stacks.length; p++) {
      start += startingStacks[p];
      now += stacks[p] + contributions[p];
      lowest = stacks[p] < lowest ? stacks[p] : lowest;
    }
  }
  // This runs after every transition: keep it small enough to inline, and build messages only on failure.
  if (lowest < 0 || start !== now) chipsNotConserved(state, start, now);
}

/**
 * Until the pots are paid, a player's chips only move between their stack and their contributions:
 * the O(1) check after one player's action. Closing a betting round checks every player, and so
 * does paying the pots (a finished hand is not checked again here).
 */
export function assertPlayerChipsConserved(state: HandState, p: number): void {
  const stack = state.stacks[p];
  if (!state.finished && (stack < 0 || stack + state.contributions[p] !== state.startingStacks[p])) playerChipsNotConserved(state, p);
}

function playerChipsNotConserved(state: HandState, p: number): never {
  const { stacks, contributions, startingStacks, seats } = state;
  if (stacks[p] < 0) invariantViolated(`negative stack ${stacks[p]} at seat ${seats[p]}`);
  invariantViolated(`chips not conserved at seat ${seats[p]}: started with ${startingStacks[p]}, now ${stacks[p]} + ${contributions[p]} contributed`);
}

function chipsNotConserved(state: HandState, start: number, now: number): never {
  const negative = state.stacks.findIndex((stack) => stack < 0);
  if (negative >= 0) invariantViolated(`negative stack ${state.stacks[negative]} at seat ${state.seats[negative]}`);
  invariantViolated(`chips not conserved: started with ${start}, now ${now}`);
}
