import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { RateLimiter } from "../../lib/rate-limit";
import type { PlayerAction } from "../../poker/hand-types";

/** What the gateway needs of a socket: Elysia's ServerWebSocket wrapper satisfies it. */
export interface BotSocket {
  id: string;
  send(data: string): unknown;
  close(code?: number, reason?: string): unknown;
}

export type ServerMessage = { type: string } & Record<string, unknown>;

export interface PendingRequest {
  requestId: string;
  botId: string;
  /** The action_request message as sent, re-sent in a snapshot after a reconnect. */
  message: ServerMessage;
  /** Returns why an action is illegal, or null when the engine accepts it. */
  check: (action: PlayerAction) => string | null;
  resolve: (answer: { action: PlayerAction; answeredAt: number } | null) => void;
  timer: unknown;
}

/** Supplies a reconnecting bot with the current state of its table, if it sits at one. */
export type SnapshotProvider = (botId: string) => ServerMessage | null;

/**
 * Remote bots' sockets, keyed by botId (and ws.id → botId). One socket per bot: a reconnect
 * replaces the old one. Action requests carry a requestId; late, duplicate and foreign answers
 * are ignored, an illegal one gets an `error` and the request stays open until its deadline.
 */
export class BotGateway {
  private readonly socketsByBot = new Map<string, BotSocket>();
  private readonly botBySocket = new Map<string, string>();
  private readonly pendingByBot = new Map<string, PendingRequest>();
  snapshotProvider: SnapshotProvider = () => null;

  /**
   * `limiter` bounds what a bot may send besides answers to its open request: answering is never
   * limited (a match against built-ins legitimately asks hundreds of times a second).
   */
  constructor(
    private readonly clock: Clock,
    private readonly limiter?: RateLimiter,
  ) {}

  isConnected(botId: string): boolean {
    return this.socketsByBot.has(botId);
  }

  connect(botId: string, socket: BotSocket, welcome: ServerMessage): void {
    const previous = this.socketsByBot.get(botId);
    if (previous && previous.id !== socket.id) {
      this.botBySocket.delete(previous.id);
      safeSend(previous, { type: "error", code: "REPLACED", message: "Another connection for this bot took over" });
      try {
        previous.close(4000, "replaced by a new connection");
      } catch {}
    }
    this.socketsByBot.set(botId, socket);
    this.botBySocket.set(socket.id, botId);
    safeSend(socket, welcome);
    const snapshot = this.snapshotProvider(botId);
    if (snapshot) safeSend(socket, snapshot);
    const pending = this.pendingByBot.get(botId);
    if (pending) safeSend(socket, pending.message);
  }

  /** A disconnect answers the open request at once with "no answer" (check, else fold). */
  disconnect(socket: BotSocket): void {
    const botId = this.botBySocket.get(socket.id);
    if (!botId) return;
    this.botBySocket.delete(socket.id);
    if (this.socketsByBot.get(botId)?.id === socket.id) {
      this.socketsByBot.delete(botId);
      this.settle(botId, null);
    }
  }

  send(botId: string, message: ServerMessage): void {
    const socket = this.socketsByBot.get(botId);
    if (socket) safeSend(socket, message);
  }

  /**
   * Sends an action_request and resolves with the first legal answer, or null at the deadline
   * (or on disconnect). `build` receives the requestId to embed in the message.
   */
  requestAction(
    botId: string,
    deadlineMs: number,
    build: (requestId: string) => ServerMessage,
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
      this.pendingByBot.set(botId, { requestId, botId, message, check, resolve, timer });
      this.send(botId, message);
    });
  }

  /** Cancels an open request (e.g. the table is shutting down). */
  cancel(botId: string): void {
    this.settle(botId, null);
  }

  /** Handles one message from a socket. */
  receive(socket: BotSocket, raw: unknown): void {
    const botId = this.botBySocket.get(socket.id);
    if (!botId) return;
    const message = parseMessage(raw);
    const pending = this.pendingByBot.get(botId);
    const answersOpenRequest = message?.type === "action" && pending !== undefined && message.requestId === pending.requestId;
    if (!answersOpenRequest && this.limiter) {
      const verdict = this.limiter.take(botId);
      if (!verdict.allowed) {
        safeSend(socket, { type: "error", code: "RATE_LIMITED", message: "Too many messages: this one was dropped", retryAfterMs: verdict.retryAfterMs });
        return;
      }
    }
    if (!message) {
      safeSend(socket, { type: "error", code: "BAD_MESSAGE", message: "Messages are JSON objects with a type" });
      return;
    }
    if (message.type === "ping") {
      safeSend(socket, { type: "pong", at: new Date(this.clock.now()).toISOString() });
      return;
    }
    if (message.type !== "action") {
      safeSend(socket, { type: "error", code: "UNKNOWN_TYPE", message: `Unknown message type "${String(message.type)}"` });
      return;
    }
    if (!pending || !answersOpenRequest) {
      safeSend(socket, {
        type: "error",
        code: "STALE_REQUEST",
        requestId: typeof message.requestId === "string" ? message.requestId.slice(0, 64) : null,
        message: "No open action request with this requestId (late, duplicate or unknown): ignored",
      });
      return;
    }
    const action = toPlayerAction(message);
    const problem = action ? pending.check(action) : "action must be fold, check, call or raise (raise with an integer amount)";
    if (!action || problem) {
      safeSend(socket, { type: "error", code: "ILLEGAL_ACTION", requestId: pending.requestId, message: problem });
      return;
    }
    this.settle(botId, { action, answeredAt: this.clock.now() });
  }

  private settle(botId: string, answer: { action: PlayerAction; answeredAt: number } | null): void {
    const pending = this.pendingByBot.get(botId);
    if (!pending) return;
    this.pendingByBot.delete(botId);
    this.clock.clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  pendingRequest(botId: string): ServerMessage | null {
    return this.pendingByBot.get(botId)?.message ?? null;
  }

  closeAll(): void {
    for (const botId of [...this.pendingByBot.keys()]) this.settle(botId, null);
    for (const socket of this.socketsByBot.values()) {
      try {
        socket.close(1001, "server shutting down");
      } catch {}
    }
    this.socketsByBot.clear();
    this.botBySocket.clear();
  }
}

function safeSend(socket: BotSocket, message: ServerMessage): void {
  try {
    socket.send(JSON.stringify(message));
  } catch {}
}

function parseMessage(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > 4096) return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  return typeof (value as { type?: unknown }).type === "string" ? (value as Record<string, unknown>) : null;
}

function toPlayerAction(message: Record<string, unknown>): PlayerAction | null {
  const { action, amount } = message;
  if (action === "fold" || action === "check" || action === "call") return { type: action };
  if (action === "raise" && typeof amount === "number" && Number.isSafeInteger(amount)) return { type: "raise", amount };
  return null;
}
