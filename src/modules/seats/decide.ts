import type { AskedSeat, Decided, DecideRules, Seat, SeatAnswer, Turn } from "./model";
import { actionBudgetMs, fallbackAction, FOLDED_FOR_MATCH, illegalityFor, timeBankAfter } from "./rules";

export type { DecideRules };

/**
 * Asks a seat for its action on this turn, the one way for every kind of seat:
 * - a seat that is leaving is not asked: check, else fold;
 * - a built-in decides at once (no clock, no bank);
 * - any other gets a deadline of actionTimeoutMs plus its time bank (wall time for a remote bot, its
 *   own run time for a hosted one); its answer must pass the one legality check (an illegal remote
 *   answer gets an `error` and the request stays open, gateway.ts); no usable answer is the no-answer
 *   fallback, or fold once its failures are exhausted; the time bank is spent and refilled by the rule.
 * Synchronous for a built-in (a hand of built-ins never waits on the event loop).
 */
export function decide(seat: Seat, turn: Turn, rules: DecideRules): Decided | Promise<Decided> {
  if (turn.leaving()) return { action: fallbackAction(turn.legal), timeBankMs: turn.timeBankMs };
  if (seat.kind === "built-in") return { action: seat.choose(turn.state, turn.legal), timeBankMs: turn.timeBankMs };
  return ask(seat, turn, rules);
}

async function ask(seat: AskedSeat, turn: Turn, rules: DecideRules): Promise<Decided> {
  const askedAt = rules.clock.now();
  const budgetMs = actionBudgetMs(turn.actionTimeoutMs, turn.timeBankMs);
  const illegality = illegalityFor(turn.state, turn.leaving);
  const answer: SeatAnswer = await seat.ask({ turn, askedAt, deadlineMs: askedAt + budgetMs, budgetMs, illegality });
  const bankAfter = (tookMs: number | null) => timeBankAfter(turn.actionTimeoutMs, turn.timeBankMs, rules.timeBank, tookMs);
  if (!answer.answered && answer.why === "silent") rules.onSilence(seat.botId);
  // A leave that came while the bot thought: its answer is not played.
  if (turn.leaving()) return { action: fallbackAction(turn.legal), timeBankMs: bankAfter(null) };
  if (answer.answered) return { action: answer.action, timeBankMs: bankAfter(answer.tookMs) };
  return { action: answer.foldedForMatch ? FOLDED_FOR_MATCH : fallbackAction(turn.legal), timeBankMs: bankAfter(null) };
}
