import type { Clock } from "../../lib/clock";
import { applyAction } from "../../poker/hand";
import type { HandState, LegalActions, PlayerAction } from "../../poker/hand-types";
import type { AskBot } from "../match-host/match-runner";
import type { SeatRuntime, TableRuntime } from "../match-host/runtime";
import { fallbackAction } from "../bots/built-ins";
import type { BotGateway } from "../protocol/gateway";
import { actionRequestMessage } from "../protocol/messages";

export interface TimeBankPolicy {
  /** Each remote seat starts with this much extra time. */
  initialMs: number;
  /** Added back after every answered action… */
  refillMs: number;
  /** …up to this cap. */
  capMs: number;
}

/**
 * Asks a remote bot over its socket: deadline = actionTimeoutMs + the seat's time bank; an
 * illegal answer keeps the request open; no answer (or a disconnect) is a check, else a fold.
 */
export function remoteAsker(gateway: BotGateway, clock: Clock, timeBank: TimeBankPolicy): AskBot {
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
      seat.timeBankMs = 0;
      return fallbackAction(legal);
    }
    const overtime = Math.max(0, answer.answeredAt - askedAt - table.config.actionTimeoutMs);
    seat.timeBankMs = Math.min(timeBank.capMs, Math.max(0, seat.timeBankMs - overtime) + timeBank.refillMs);
    return answer.action;
  };
}
