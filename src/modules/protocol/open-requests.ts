import type { ActionRequestMessage, ErrorMessage } from "@poker-bots/protocol";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { LatencyRecorder } from "../../lib/latency";
import type { PlayerAction } from "../../poker/hand-types";
import { toPlayerAction } from "../seats/answers";

export interface PendingRequest {
  requestId: string;
  botId: string;
  /** The action_request message as sent, re-sent in a snapshot after a reconnect. */
  message: ActionRequestMessage;
  /** Returns why an action is illegal, or null when it is accepted (the seat's one check, seats/decide.ts). */
  check: (action: PlayerAction) => string | null;
  /** clock.now() after which an answer is late, even one that arrives before the timer fires. */
  deadlineMs: number;
  resolve: (answer: { action: PlayerAction; answeredAt: number } | null) => void;
  timer: unknown;
}

/**
 * The gateway's open action requests, one per bot: sent, answered, or settled "no answer" at the
 * deadline (or on a disconnect, a cancel, a shutdown). Late, duplicate and foreign answers are
 * refused (STALE_REQUEST); an illegal one gets ILLEGAL_ACTION and the request stays open.
 */
export class OpenRequests {
  private readonly pendingByBot = new Map<string, PendingRequest>();
  /**
   * Server-side turnaround: from a bot's legal action arriving on its socket here to its table's
   * next action_request leaving (the engine, the hand's messages and the next deal in between).
   */
  readonly turnaround = new LatencyRecorder();
  /** When the latest legal action of each table (by tableId) arrived, until its next request leaves. */
  private readonly actionArrivedAt = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    /** Sends the request to the bot, wherever its socket is; and starts listening for answers from other nodes. */
    private readonly sendRequest: (botId: string, message: ActionRequestMessage) => void,
  ) {}

  has(botId: string): boolean {
    return this.pendingByBot.has(botId);
  }

  of(botId: string): PendingRequest | undefined {
    return this.pendingByBot.get(botId);
  }

  /** See BotGateway.requestAction. */
  open(
    botId: string,
    deadlineMs: number,
    build: (requestId: string) => ActionRequestMessage,
    check: (action: PlayerAction) => string | null,
  ): Promise<{ action: PlayerAction; answeredAt: number } | null> {
    this.settle(botId, null);
    return new Promise((resolve) => {
      const requestId = newId("req", this.clock.now());
      const message = build(requestId);
      const wait = Math.max(0, deadlineMs - this.clock.now());
      const timer = this.clock.setTimeout(() => {
        if (this.pendingByBot.get(botId)?.requestId === requestId) this.settle(botId, null);
      }, wait);
      this.pendingByBot.set(botId, { requestId, botId, message, check, deadlineMs, resolve, timer });
      this.sendRequest(botId, message);
      const arrived = this.actionArrivedAt.get(message.tableId);
      if (arrived !== undefined) {
        this.actionArrivedAt.delete(message.tableId);
        this.turnaround.record(performance.now() - arrived);
      }
    });
  }

  /** A legal action of this table arrived at `arrivedAt` (performance.now()): its next request's turnaround counts from it. */
  actionArrived(tableId: string, arrivedAt: number): void {
    // A table whose match ended on this action never sends another request: keep the map bounded.
    if (this.actionArrivedAt.size >= 10_000) this.actionArrivedAt.clear();
    this.actionArrivedAt.set(tableId, arrivedAt);
  }

  /**
   * An `action` message for the bot's open request, from its socket here or relayed from another
   * node: settles the request, or returns the error to send back (stale or illegal answer).
   */
  answer(botId: string, message: Record<string, unknown>): ErrorMessage | null {
    const pending = this.pendingByBot.get(botId);
    if (!pending || message.requestId !== pending.requestId) {
      return {
        type: "error",
        code: "STALE_REQUEST",
        requestId: typeof message.requestId === "string" ? message.requestId.slice(0, 64) : null,
        message: "No open action request with this requestId (late, duplicate or unknown): ignored",
      };
    }
    // Late, though its timer has not fired yet (the event loop was busy, or a bot in this process decided synchronously past it).
    if (this.clock.now() > pending.deadlineMs) {
      this.settle(botId, null);
      return { type: "error", code: "STALE_REQUEST", requestId: pending.requestId, message: "This answer came after the request's deadline: checked or folded for you" };
    }
    const illegal = (problem: string): ErrorMessage => ({ type: "error", code: "ILLEGAL_ACTION", requestId: pending.requestId, message: problem });
    const action = toPlayerAction(message);
    if (!action) return illegal("action must be fold, check, call or raise (raise with an integer amount)");
    const problem = pending.check(action);
    if (problem) return illegal(problem);
    this.settle(botId, { action, answeredAt: this.clock.now() });
    return null;
  }

  /** Settles the bot's open request, if any: with its answer, or null ("no answer": check, else fold). */
  settle(botId: string, answer: { action: PlayerAction; answeredAt: number } | null): void {
    const pending = this.pendingByBot.get(botId);
    if (!pending) return;
    this.pendingByBot.delete(botId);
    this.clock.clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  settleAll(): void {
    for (const botId of [...this.pendingByBot.keys()]) this.settle(botId, null);
  }
}
