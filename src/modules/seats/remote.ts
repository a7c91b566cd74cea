import type { ActionRequestMessage } from "@poker-bots/protocol";
import type { PlayerAction } from "../../poker/hand-types";
import type { Clock } from "../../lib/clock";
import type { AskedSeat, AskedSeats, Question, SeatAnswer } from "./model";
import type { TimeBankPolicy } from "./rules";

/**
 * What a remote seat needs of the gateway (protocol/gateway.ts BotGateway): send a request and
 * resolve with the first answer `check` accepts, or null at the deadline or on a disconnect.
 */
export interface ActionRequests {
  requestAction(
    botId: string,
    deadlineMs: number,
    build: (requestId: string) => ActionRequestMessage,
    check: (action: PlayerAction) => string | null,
  ): Promise<{ action: PlayerAction; answeredAt: number } | null>;
}

/**
 * A bot behind a socket of the gateway: a WebSocket, an agent over MCP or an ACPC connection. The
 * gateway applies the question's legality check to each answer as it arrives (an illegal one gets an
 * `error`, and the request stays open until its deadline), so the bot may correct itself in time.
 */
export class RemoteSeat implements AskedSeat {
  readonly kind = "remote";

  constructor(
    readonly botId: string,
    private readonly requests: ActionRequests,
  ) {}

  async ask(question: Question): Promise<SeatAnswer> {
    const { turn, deadlineMs } = question;
    const answer = await this.requests.requestAction(this.botId, deadlineMs, (requestId) => turn.request(requestId, deadlineMs), question.illegality);
    if (!answer) return { answered: false, why: "silent", foldedForMatch: false };
    return { answered: true, action: answer.action, tookMs: answer.answeredAt - question.askedAt };
  }
}

/**
 * The server's seats for every bot that is neither built in nor hosted: a RemoteSeat of the
 * gateway each, asked by decide.ts under the node's time bank. The server counts no silences: a
 * bot's log and the hand history show each fallback.
 */
export function remoteSeats(gateway: ActionRequests, clock: Clock, timeBank: TimeBankPolicy): AskedSeats {
  return {
    seat: (botId) => new RemoteSeat(botId, gateway),
    rules: { clock, timeBank, onSilence: () => {} },
  };
}
