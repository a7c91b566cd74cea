import type { HandState } from "./hand-types.ts";

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`poker invariant violated: ${message}`);
}

/** Every chip is either behind a player or contributed to this hand; no stack is negative. */
export function assertChipsConserved(state: HandState): void {
  let start = 0, now = 0;
  for (let p = 0; p < state.stacks.length; p++) {
    assert(state.stacks[p] >= 0, `negative stack ${state.stacks[p]} at seat ${state.seats[p]}`);
    start += state.startingStacks[p];
    now += state.stacks[p] + (state.finished ? 0 : state.contributions[p]);
  }
  assert(start === now, `chips not conserved: started with ${start}, now ${now}`);
}
