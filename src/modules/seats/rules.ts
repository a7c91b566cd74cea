import { applyAction } from "../../poker/hand";
import type { HandState, LegalActions, PlayerAction } from "../../poker/hand-types";

/**
 * The rules a seat is asked under, each defined once (decide.ts applies them for every kind of seat).
 */

/** The no-answer rule (a timeout, a disconnect, a failed hosted decision, a bot that left): check, else fold. */
export function fallbackAction(legal: LegalActions): PlayerAction {
  return legal.canCheck ? { type: "check" } : { type: "fold" };
}

/** What a seat plays once its failures are exhausted (FailureCount): fold, for the rest of the match. */
export const FOLDED_FOR_MATCH: PlayerAction = { type: "fold" };

/**
 * The one legality check of a seat's answer on this turn: null when the engine accepts it, else why
 * not (a seat that is leaving has its actions folded for it, whatever it answers).
 */
export function illegalityFor(state: HandState, leaving: () => boolean): (action: PlayerAction) => string | null {
  return (action) => {
    if (leaving()) return "you are leaving this table: your actions are folded for you";
    const tried = applyAction(state, action);
    return tried.ok ? null : tried.reason;
  };
}

/**
 * The failure rule: a seat that fails `limit` times in one match (a timeout, an exception, memory, an
 * illegal answer, a failed hook …) is folded for the rest of it without being run again. Counted per
 * seat and match; the seat's kind says what a failure is (a hosted seat: sandbox/seat.ts).
 */
export class FailureCount {
  private failures = 0;

  constructor(readonly limit: number) {}

  get count(): number {
    return this.failures;
  }

  /** Whether the seat folds for the rest of the match. */
  get exhausted(): boolean {
    return this.failures >= this.limit;
  }

  /** Counts one failure; true when this one exhausts the seat (it folds from now on). */
  record(): boolean {
    const before = this.exhausted;
    this.failures += 1;
    return !before && this.exhausted;
  }
}

export interface TimeBankPolicy {
  /** Each seat that is not built in starts with this much extra time. */
  initialMs: number;
  /** Added back after every answered action… */
  refillMs: number;
  /** …up to this cap. */
  capMs: number;
}

/** No extra time beyond each action's timeout (local play, where --timeout means what it says). */
export const NO_TIME_BANK: TimeBankPolicy = { initialMs: 0, refillMs: 0, capMs: 0 };

/** The longest a seat may take over one action: the per-action timeout plus its time bank. */
export function actionBudgetMs(actionTimeoutMs: number, timeBankMs: number): number {
  return actionTimeoutMs + timeBankMs;
}

/**
 * The time bank rule, for every seat that is not built in: an answer that took `tookMs` spends what
 * ran past actionTimeoutMs and refills the bank a little (up to its cap); no usable answer (`tookMs`
 * null: a timeout, a disconnect, a failed hosted decision) empties it. Returns the bank after.
 */
export function timeBankAfter(actionTimeoutMs: number, timeBankMs: number, policy: TimeBankPolicy, tookMs: number | null): number {
  if (tookMs === null) return 0;
  const overtime = Math.max(0, tookMs - actionTimeoutMs);
  return Math.min(policy.capMs, Math.max(0, timeBankMs - overtime) + policy.refillMs);
}
