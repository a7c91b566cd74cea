/**
 * The one invariant helper (TigerBeetle's habit): a broken invariant is a bug, never a user error,
 * so it throws loudly. Assert where a rule must hold: the engine's chip conservation, one host per
 * table, fence epochs that only grow, chips in seats and balances adding up to the grants.
 */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) invariantViolated(message);
}

/** For messages that cost something to build: check the condition first, then call this. */
export function invariantViolated(message: string): never {
  throw new Error(`Invariant violated: ${message}`);
}
