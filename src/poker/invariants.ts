import type { HandState } from "./hand-types.ts";

/** For messages that cost something to build, check the condition first and call invariantViolated. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) invariantViolated(message);
}

export function invariantViolated(message: string): never {
  throw new Error(`poker invariant violated: ${message}`);
}

/** Every chip is either behind a player or contributed to this hand; no stack is negative. */
export function assertChipsConserved(state: HandState): void {
  const { stacks, startingStacks, contributions } = state;
  const countContributions = !state.finished;
  let start = 0, now = 0, lowest = 0;
  for (let p = 0; p < stacks.length; p++) {
    const stack = stacks[p];
    if (stack < lowest) lowest = stack;
    start += startingStacks[p];
    now += countContributions ? stack + contributions[p] : stack;
  }
  // Messages are built only on failure: this runs after every transition.
  if (lowest < 0) invariantViolated(`negative stack ${lowest} at seat ${state.seats[stacks.indexOf(lowest)]}`);
  if (start !== now) invariantViolated(`chips not conserved: started with ${start}, now ${now}`);
}
