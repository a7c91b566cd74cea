/** Invariant check: a broken invariant is a bug, never a user error, so it throws loudly. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Invariant violated: ${message}`);
}
