import type { Clock } from "../../lib/clock";
import { applyAction } from "../../poker/hand";
import type { HandState, LegalActions, PlayerAction } from "../../poker/hand-types";
import type { SeatRuntime, TableRuntime } from "../match-host/runtime";
import type { BotGateway } from "../protocol/gateway";
import { actionRequestMessage } from "../protocol/messages";
import type { ActionRequestMessage } from "@poker-bots/protocol";

/**
 * The action clock: what a bot that is not built in gets to answer, and what is done for it when it
 * does not. One implementation for the server (remote bots over WebSocket) and for `cli play` /
 * `eval` (bot files in the same process, through the same gateway).
 */

/** The no-answer rule (a timeout, a disconnect, a bot that left): check, else fold. */
export function fallbackAction(legal: LegalActions): PlayerAction {
  return legal.canCheck ? { type: "check" } : { type: "fold" };
}

/** Asks a seat that is not a built-in (a remote bot, or a bot file in this process) for its action. */
export type AskBot = (table: TableRuntime, state: HandState, legal: LegalActions, seat: SeatRuntime) => Promise<PlayerAction>;

/** No extra time beyond each action's timeout (local play, where --timeout means what it says). */
export const NO_TIME_BANK: TimeBankPolicy = { initialMs: 0, refillMs: 0, capMs: 0 };

export interface TimeBankPolicy {
  /** Each remote seat starts with this much extra time. */
  initialMs: number;
  /** Added back after every answered action… */
  refillMs: number;
  /** …up to this cap. */
  capMs: number;
}

/** The longest a seat may take over one action: the per-action timeout plus its time bank. */
export function actionBudgetMs(table: TableRuntime, seat: SeatRuntime): number {
  return table.config.actionTimeoutMs + seat.timeBankMs;
}

/**
 * The time bank rule, for every bot that is not built in: an answer that took `tookMs` spends
 * what ran past actionTimeoutMs and refills the bank a little (up to its cap); no usable answer
 * (`tookMs` null: a timeout, a disconnect, a failed hosted decision) empties it.
 */
export function settleTimeBank(table: TableRuntime, seat: SeatRuntime, timeBank: TimeBankPolicy, tookMs: number | null): void {
  if (tookMs === null) {
    seat.timeBankMs = 0;
    return;
  }
  const overtime = Math.max(0, tookMs - table.config.actionTimeoutMs);
  seat.timeBankMs = Math.min(timeBank.capMs, Math.max(0, seat.timeBankMs - overtime) + timeBank.refillMs);
}

/**
 * Asks a bot through the gateway: deadline = actionTimeoutMs + the seat's time bank; an illegal
 * answer gets an `error` and the request stays open until its deadline (BotGateway.answer); no
 * answer by then (or a disconnect) is a check, else a fold (`noAnswer` hears of it); an answer
 * past actionTimeoutMs spends the time bank, and every answer refills it a little.
 */
export function askWithActionClock(gateway: BotGateway, clock: Clock, timeBank: TimeBankPolicy, noAnswer: (seat: SeatRuntime) => void = () => {}): AskBot {
  return async (table: TableRuntime, state: HandState, legal: LegalActions, seat: SeatRuntime): Promise<PlayerAction> => {
    const askedAt = clock.now();
    const deadline = askedAt + actionBudgetMs(table, seat);
    const answer = await gateway.requestAction(
      seat.botId,
      deadline,
      (requestId) => actionRequestMessage(table, state, legal, requestId, deadline, seat.timeBankMs),
      (action) => {
        if (seat.leaving) return "you are leaving this table: your actions are folded for you";
        const tried = applyAction(state, action);
        return tried.ok ? null : tried.reason;
      },
    );
    if (!answer || seat.leaving) {
      if (!answer) noAnswer(seat);
      settleTimeBank(table, seat, timeBank, null);
      return fallbackAction(legal);
    }
    settleTimeBank(table, seat, timeBank, answer.answeredAt - askedAt);
    return answer.action;
  };
}

/** What a bot that runs here (a hosted bot, in the sandbox) made of one action request. */
export interface ComputedAnswer {
  /** Its answer, or what was done for it (the fallback; fold once it is folded for the match). */
  action: PlayerAction;
  /** false: no usable answer (a timeout, an exception, memory, an illegal answer …). */
  ok: boolean;
  /** Time it ran, in its own (sandbox) time: queueing behind other bots does not count. */
  ms: number;
}

/** Runs a seat's code on an action request within `budgetMs` of its own time. Never rejects. */
export type ComputeAction = (seat: SeatRuntime, request: ActionRequestMessage, budgetMs: number) => Promise<ComputedAnswer>;

/**
 * The action clock for bots that run on this node: the same request a remote bot gets, the
 * same budget (actionTimeoutMs + the time bank, counted in the bot's own run time) and the same
 * time bank rule; a failure gets the no-answer fallback and empties the bank, as a silence would.
 */
export function askComputedWithActionClock(compute: ComputeAction, clock: Clock, timeBank: TimeBankPolicy): AskBot {
  let requests = 0;
  return async (table: TableRuntime, state: HandState, legal: LegalActions, seat: SeatRuntime): Promise<PlayerAction> => {
    const budgetMs = actionBudgetMs(table, seat);
    const request = actionRequestMessage(table, state, legal, `local-${++requests}`, clock.now() + budgetMs, seat.timeBankMs);
    const answer = await compute(seat, request, budgetMs);
    // The engine has the last word on legality (the sandbox checks by the SDK's rules already).
    const legalHere = !seat.leaving && applyAction(state, answer.action).ok;
    settleTimeBank(table, seat, timeBank, answer.ok && legalHere ? answer.ms : null);
    return legalHere ? answer.action : fallbackAction(legal);
  };
}
