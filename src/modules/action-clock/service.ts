import type { Clock } from "../../lib/clock";
import { applyAction } from "../../poker/hand";
import type { HandState, LegalActions, PlayerAction } from "../../poker/hand-types";
import type { SeatRuntime, TableRuntime } from "../match-host/runtime";
import type { BotGateway } from "../protocol/gateway";
import { actionRequestMessage } from "../protocol/messages";

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

/**
 * Asks a bot through the gateway: deadline = actionTimeoutMs + the seat's time bank; an illegal
 * answer gets an `error` and the request stays open until its deadline (BotGateway.answer); no
 * answer by then (or a disconnect) is a check, else a fold (`noAnswer` hears of it); an answer
 * past actionTimeoutMs spends the time bank, and every answer refills it a little.
 */
export function askWithActionClock(gateway: BotGateway, clock: Clock, timeBank: TimeBankPolicy, noAnswer: (seat: SeatRuntime) => void = () => {}): AskBot {
  return async (table: TableRuntime, state: HandState, legal: LegalActions, seat: SeatRuntime): Promise<PlayerAction> => {
    const askedAt = clock.now();
    const deadline = askedAt + table.config.actionTimeoutMs + seat.timeBankMs;
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
      seat.timeBankMs = 0;
      return fallbackAction(legal);
    }
    const overtime = Math.max(0, answer.answeredAt - askedAt - table.config.actionTimeoutMs);
    seat.timeBankMs = Math.min(timeBank.capMs, Math.max(0, seat.timeBankMs - overtime) + timeBank.refillMs);
    return answer.action;
  };
}
