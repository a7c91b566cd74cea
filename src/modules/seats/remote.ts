import type { ActionRequestMessage } from "@poker-bots/protocol";
import type { PlayerAction } from "../../poker/hand-types";
import type { AskedSeat, Question, SeatAnswer } from "./model";

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
