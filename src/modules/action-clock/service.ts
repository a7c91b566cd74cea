import type { Clock } from "../../lib/clock";
import type { AskedSeats } from "../seats/model";
import { RemoteSeat, type ActionRequests } from "../seats/remote";
import type { TimeBankPolicy } from "../seats/rules";

/**
 * The server's remote seats, as the match host composes them: every bot that is not built in nor
 * hosted is a RemoteSeat of the gateway, asked by seats/decide.ts under the node's time bank. The
 * action clock's rules themselves (deadline, time bank, legality, fallback, failures) are all in
 * src/modules/seats; this file only wires them for match-host/host.ts.
 */
export type { TimeBankPolicy };
export type AskBot = AskedSeats;

export function askWithActionClock(gateway: ActionRequests, clock: Clock, timeBank: TimeBankPolicy): AskedSeats {
  return {
    seat: (botId) => new RemoteSeat(botId, gateway),
    // The server counts no silences: a bot's log and the hand history show each fallback.
    rules: { clock, timeBank, onSilence: () => {} },
  };
}
