import type { ActionRequestMessage, ErrorMessage, ServerMessage } from "@poker-bots/protocol";
import type { Clock } from "../../lib/clock";
import { LatencyRecorder } from "../../lib/latency";
import { newId } from "../../lib/ids";
import type { RateLimiter } from "../../lib/rate-limit";
import type { PlayerAction } from "../../poker/hand-types";
import type { KeyCheck } from "../bots/key-check";
import { toPlayerAction } from "../seats/answers";
import { parseMessage } from "./bot-answers";
import type { ConnectionVia, PresenceRecorder } from "./presence";

/** What the gateway needs of a socket: Elysia's ServerWebSocket wrapper satisfies it. */
export interface BotSocket {
  id: string;
  /** How the bot is connected (bot_presence.via): a WebSocket unless the socket says otherwise. */
  via?: ConnectionVia;
  send(data: string): unknown;
  close(code?: number, reason?: string): unknown;
}

/** What the server sends a bot: the protocol's one definition (packages/protocol), which the SDK's types are too. */
export type { ServerMessage };

export interface PendingRequest {
  requestId: string;
  botId: string;
  /** The action_request message as sent, re-sent in a snapshot after a reconnect. */
  message: ActionRequestMessage;
  /** Returns why an action is illegal, or null when the engine accepts it. */
  check: (action: PlayerAction) => string | null;
  /** clock.now() after which an answer is late, even one that arrives before the timer fires. */
  deadlineMs: number;
  resolve: (answer: { action: PlayerAction; answeredAt: number } | null) => void;
  timer: unknown;
}

/** What the gateway needs of the cluster: see BotRelay. */
export interface GatewayRelay {
  toBot(botId: string, message: ServerMessage): void;
  forwardAnswer(botId: string, message: Record<string, unknown>): Promise<ServerMessage | null>;
  socketOpened(botId: string): void;
  socketClosed(botId: string): void;
  socketGone(botId: string): void;
  listen(botId: string): void;
  stopListening(botId: string): void;
}

/** Supplies a reconnecting bot with the current state of its table, if it sits at one. */
export type SnapshotProvider = (botId: string) => ServerMessage | null;

/** Messages that seat a bot in a match or ask it to act: its socket's key is checked again at each. */
const KEY_RECHECKED = new Set(["action_request", "match_started", "match_resumed", "snapshot"]);

/** The latest re-check of a socket's key: what is sent to the socket next waits for it; a failed one closes the socket. */
interface KeyVerdict {
  settled: boolean;
  valid: boolean;
  done: Promise<void>;
}

/**
 * Remote bots' sockets, keyed by botId (and ws.id → botId). One socket per bot: a reconnect
 * replaces the old one. Action requests carry a requestId; late, duplicate and foreign answers
 * are ignored, an illegal one gets an `error` and the request stays open until its deadline.
 */
export class BotGateway {
  private readonly socketsByBot = new Map<string, BotSocket>();
  private readonly botBySocket = new Map<string, string>();
  private readonly pendingByBot = new Map<string, PendingRequest>();
  /**
   * Server-side turnaround: from a bot's legal action arriving on its socket here to its table's
   * next action_request leaving (the engine, the hand's messages and the next deal in between).
   */
  readonly turnaround = new LatencyRecorder();
  /** When the latest legal action of each table (by tableId) arrived, until its next request leaves. */
  private readonly actionArrivedAt = new Map<string, number>();
  snapshotProvider: SnapshotProvider = () => null;
  /** The SHA-256 of the key each socket (by ws.id) was opened with. */
  private readonly keyHashOfSocket = new Map<string, string>();
  private readonly keyVerdicts = new Map<string, KeyVerdict>();
  /**
   * Checks a socket's key against the database (set by the app): a key rotated or a bot retired on
   * any node, with or without the bus, plays nothing more (see recheckKey).
   */
  keyCheck: KeyCheck | undefined;
  /** Reaches bots whose socket is on another node (set when the node joins its cluster). */
  relay: GatewayRelay | undefined;
  /** Told where bots connect and disconnect (bot_presence: the ladder pairs only connected bots). */
  presence: PresenceRecorder | undefined;

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

  /** `keyHash`: the SHA-256 of the api key the socket was opened with (re-checked before it plays). */
  connect(botId: string, socket: BotSocket, welcome: ServerMessage, keyHash?: string): void {
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
    if (keyHash !== undefined) this.keyHashOfSocket.set(socket.id, keyHash);
    this.keyVerdicts.delete(botId);
    safeSend(socket, welcome);
    const snapshot = this.snapshotProvider(botId);
    if (snapshot) this.deliver(botId, socket, snapshot);
    const pending = this.pendingByBot.get(botId);
    if (pending) this.deliver(botId, socket, pending.message);
    // Other nodes close their socket for this bot; its table's host (if elsewhere) re-sends the state.
    this.relay?.socketOpened(botId);
    this.presence?.opened(botId, socket.via ?? "socket");
  }

  /** Another node now holds this bot's socket: close ours without counting it as a disconnect. */
  dropReplaced(botId: string): void {
    const socket = this.socketsByBot.get(botId);
    if (!socket) return;
    this.socketsByBot.delete(botId);
    this.botBySocket.delete(socket.id);
    this.keyHashOfSocket.delete(socket.id);
    this.relay?.socketGone(botId);
    safeSend(socket, { type: "error", code: "REPLACED", message: "Another connection for this bot took over" });
    try {
      socket.close(4000, "replaced by a new connection");
    } catch {}
  }

  /** The bot's api key was rotated: a socket opened with the old key is closed (code 4001). */
  revoke(botId: string): void {
    const socket = this.socketsByBot.get(botId);
    if (!socket) return;
    safeSend(socket, { type: "error", code: "KEY_ROTATED", message: "This bot's api key was rotated: connect again with the new key" });
    try {
      socket.close(4001, "api key rotated");
    } catch {}
  }

  /** The bot reconnected on another node: send it what a local reconnect gets (snapshot, open request). */
  resendState(botId: string): void {
    if (this.socketsByBot.has(botId)) return;
    const snapshot = this.snapshotProvider(botId);
    if (snapshot) this.send(botId, snapshot);
    const pending = this.pendingByBot.get(botId);
    if (pending) this.send(botId, pending.message);
  }

  /** A disconnect answers the open request at once with "no answer" (check, else fold). */
  disconnect(socket: BotSocket): void {
    const botId = this.botBySocket.get(socket.id);
    if (!botId) return;
    this.botBySocket.delete(socket.id);
    this.keyHashOfSocket.delete(socket.id);
    if (this.socketsByBot.get(botId)?.id === socket.id) {
      this.socketsByBot.delete(botId);
      this.keyVerdicts.delete(botId);
      this.presence?.closed(botId);
      this.settle(botId, null);
      this.relay?.socketClosed(botId);
    }
  }

  /** To the bot's socket here, else to whichever node holds it. */
  send(botId: string, message: ServerMessage): void {
    const socket = this.socketsByBot.get(botId);
    if (socket) this.deliver(botId, socket, message);
    else this.relay?.toBot(botId, message);
  }

  /** A message relayed from the node holding the bot's socket: delivered only if the socket is here. */
  deliverLocally(botId: string, message: ServerMessage): void {
    const socket = this.socketsByBot.get(botId);
    if (socket) this.deliver(botId, socket, message);
  }

  /**
   * Every message to a socket on this node goes here. A seat or a request re-checks the socket's
   * key, and whatever is sent to the socket after it waits for that verdict (in order): a key
   * found gone closes the socket before its next request, so it answers at most the one request
   * that was out while it was checked.
   */
  private deliver(botId: string, socket: BotSocket, message: ServerMessage): void {
    const verdict = this.keyVerdicts.get(botId);
    if (verdict && !verdict.settled) return void verdict.done.then(() => this.deliverChecked(botId, socket, message));
    this.deliverChecked(botId, socket, message);
  }

  private deliverChecked(botId: string, socket: BotSocket, message: ServerMessage): void {
    if (this.keyVerdicts.get(botId)?.valid === false || this.socketsByBot.get(botId)?.id !== socket.id) return;
    if (KEY_RECHECKED.has(message.type)) this.recheckKey(botId, socket);
    safeSend(socket, message);
  }

  /**
   * The key's check runs while the bot thinks: nothing waits for it unless the next message comes
   * first. A key no longer the bot's (rotated, or the bot retired, on any node) closes the socket
   * (4001) and its open request is answered "no answer": the old key plays nothing more. A database
   * that cannot answer is not a verdict: play goes on (a node that cannot reach its database stops
   * dealing within seconds anyway, see LeaseKeeper.standing).
   */
  private recheckKey(botId: string, socket: BotSocket): void {
    const keyHash = this.keyHashOfSocket.get(socket.id);
    if (keyHash === undefined || !this.keyCheck) return;
    const verdict: KeyVerdict = { settled: false, valid: true, done: Promise.resolve() };
    verdict.done = this.keyCheck(botId, keyHash).then(
      (valid) => {
        verdict.settled = true;
        verdict.valid = valid;
        if (!valid && this.socketsByBot.get(botId)?.id === socket.id) {
          this.revoke(botId);
          this.disconnect(socket);
        }
      },
      () => {
        verdict.settled = true;
      },
    );
    this.keyVerdicts.set(botId, verdict);
  }

  /** The bot's table is over (or the bot left): stop listening for its answers from other nodes. */
  forget(botId: string): void {
    if (!this.pendingByBot.has(botId)) this.relay?.stopListening(botId);
  }

  /**
   * Sends an action_request and resolves with the first legal answer, or null at the deadline
   * (or on disconnect). `build` receives the requestId to embed in the message.
   */
  requestAction(
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
      this.relay?.listen(botId);
      this.send(botId, message);
      const arrived = this.actionArrivedAt.get(message.tableId);
      if (arrived !== undefined) {
        this.actionArrivedAt.delete(message.tableId);
        this.turnaround.record(performance.now() - arrived);
      }
    });
  }

  /** Cancels an open request (e.g. the table is shutting down). */
  cancel(botId: string): void {
    this.settle(botId, null);
  }

  /** Handles one message from a socket. */
  receive(socket: BotSocket, raw: unknown): void {
    const arrivedAt = performance.now();
    const botId = this.botBySocket.get(socket.id);
    if (!botId) return;
    if (this.keyVerdicts.get(botId)?.valid === false) return;
    const message = parseMessage(raw);
    const pending = this.pendingByBot.get(botId);
    const answersOpenRequest = message?.type === "action" && pending !== undefined && message.requestId === pending.requestId;
    // An action with no request open here may answer one the table's host (another node) sent:
    // it is forwarded unlimited, and charged to the limit only if the host refuses it.
    const relayedAnswer = message?.type === "action" && pending === undefined && this.relay !== undefined;
    if (!answersOpenRequest && !relayedAnswer && this.limiter) {
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
    if (!pending && this.relay) {
      // The request, if any, was sent by the host of the bot's table on another node.
      void this.relay.forwardAnswer(botId, message).then((reply) => {
        if (!reply) return;
        this.limiter?.take(botId);
        safeSend(socket, reply);
      });
      return;
    }
    const reply = this.answer(botId, message);
    if (!reply) {
      const tableId = (pending?.message as { tableId?: string } | undefined)?.tableId;
      if (tableId !== undefined) {
        // A table whose match ended on this action never sends another request: keep the map bounded.
        if (this.actionArrivedAt.size >= 10_000) this.actionArrivedAt.clear();
        this.actionArrivedAt.set(tableId, arrivedAt);
      }
      return;
    }
    // Illegal answers to the open request count against the bot's message budget: past it, the
    // request is answered for the bot (check, else fold) instead of being checked again and again.
    if (answersOpenRequest && reply.code === "ILLEGAL_ACTION" && this.limiter && !this.limiter.take(botId).allowed) {
      safeSend(socket, { type: "error", code: "RATE_LIMITED", message: "Too many illegal answers: this request was answered for you (check, else fold)" });
      this.settle(botId, null);
      return;
    }
    safeSend(socket, reply);
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

  /**
   * An answer that did not come on a socket (an agent's `act` over MCP, on whichever node its call
   * landed): to the open request here, else forwarded to the node whose table asked. null: accepted.
   */
  async answerFromAnywhere(botId: string, message: Record<string, unknown>): Promise<ServerMessage | null> {
    if (this.pendingByBot.has(botId) || !this.relay) return this.answer(botId, message);
    return this.relay.forwardAnswer(botId, message);
  }

  /**
   * Whether this request of the bot's is still open, here or at the table's node: asked as an
   * answer no table accepts (`answer` refuses it without settling anything), so an open request
   * answers ILLEGAL_ACTION and a settled one STALE_REQUEST.
   */
  async isRequestOpen(botId: string, requestId: string): Promise<boolean> {
    const reply = await this.answerFromAnywhere(botId, { type: "action", requestId, action: "(probe)" });
    return reply?.type === "error" && reply.code === "ILLEGAL_ACTION";
  }

  /** The bot's socket on another node closed: as a local disconnect, its open request is answered "no answer". */
  relayedDisconnect(botId: string): void {
    if (!this.socketsByBot.has(botId)) this.settle(botId, null);
  }

  private settle(botId: string, answer: { action: PlayerAction; answeredAt: number } | null): void {
    const pending = this.pendingByBot.get(botId);
    if (!pending) return;
    this.pendingByBot.delete(botId);
    this.clock.clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  pendingRequest(botId: string): ActionRequestMessage | null {
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
