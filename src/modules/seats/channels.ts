import type { ServerMessage } from "@poker-bots/protocol";
import type { Clock } from "../../lib/clock";
import { hostedRequestIds, HostedSandboxSeat, type SandboxDecisions } from "./hosted";
import type { AskedSeats } from "./model";
import type { TimeBankPolicy } from "./rules";

/** A match's hosted seats (hosted/players.ts MatchPlayers): which bots they are, what they hear, how they decide. */
export interface HostedSeats extends SandboxDecisions {
  has(botId: string): boolean;
  notify(botId: string, message: ServerMessage): void;
}

/**
 * How a match's seats that are not built in are reached, on the service and in `cli play`/`eval`
 * alike: hosted ones in the sandbox here (hosted.ts), the others through the gateway (remote.ts);
 * all asked by decide.ts under one clock and time bank.
 */
export function seatChannels(
  hosted: HostedSeats | null,
  remote: { ask: AskedSeats; send: (botId: string, message: ServerMessage) => void },
  clock: Clock,
  timeBank: TimeBankPolicy,
): { askBot: AskedSeats; notify: (botId: string, message: ServerMessage) => void } {
  if (hosted === null) return { askBot: remote.ask, notify: remote.send };
  const requestIds = hostedRequestIds();
  return {
    askBot: {
      seat: (botId) => (hosted.has(botId) ? new HostedSandboxSeat(botId, hosted, requestIds) : remote.ask.seat(botId)),
      rules: { clock, timeBank, onSilence: remote.ask.rules.onSilence },
    },
    notify: (botId, message) => (hosted.has(botId) ? hosted.notify(botId, message) : remote.send(botId, message)),
  };
}
