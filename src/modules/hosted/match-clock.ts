/**
 * The time a hosted bot reads (issue 32). Inside a call `Date.now()` (and `new Date()`, and the
 * SDK's `performance.now()`) is frozen at the time the host sets for the call; across calls it
 * must not be the host's real time either: a context that reads the clock could time what other
 * code did between its calls (the other copy of a duplicate deal thinking in proportion to its
 * cards, on the same worker or the same machine). So every hosted context runs on its own match
 * clock: it starts at the match's `origin` and advances a fixed step per message the context
 * receives, whatever happened meanwhile. The `deadline` of its action_request is on the same clock
 * (now + its budget). Its budgets are counted in sandbox CPU time (sandbox/cpu-clock.ts), so the
 * clock it reads need not be the wall's.
 */

/** How far a context's clock moves per message it receives. */
export const MATCH_CLOCK_STEP_MS = 1;

export class MatchClock {
  private received = 0;

  constructor(readonly origin: number) {}

  /** The time of the next message the context receives (the count includes it). */
  next(): number {
    this.received += 1;
    return this.origin + MATCH_CLOCK_STEP_MS * this.received;
  }
}

/** An action_request as the context sees it: its deadline on the context's clock, `budgetMs` after `nowMs`. */
export function onMatchClock<T extends { deadline: string }>(request: T, nowMs: number, budgetMs: number): T {
  return { ...request, deadline: new Date(nowMs + budgetMs).toISOString() };
}
