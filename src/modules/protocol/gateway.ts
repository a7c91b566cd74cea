import type { ActionRequestMessage, ErrorMessage, ServerMessage } from "@poker-bots/protocol";
import type { Clock } from "../../lib/clock";
import type { RateLimiter } from "../../lib/rate-limit";
import type { PlayerAction } from "../../poker/hand-types";
import type { KeyCheck } from "../bots/key-check";
import { parseMessage, replyToNonAnswer } from "./bot-answers";
import { KeyRechecks } from "./key-rechecks";
import { OpenRequests } from "./open-requests";
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

export type { PendingRequest } from "./open-requests";

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

/** What the gateway asks of the rest of the node, given at construction. */
export interface GatewayLinks {
  keyCheck?: KeyCheck;
  presence?: PresenceRecorder;
  /** The state of a reconnecting bot's table (tables/held-tables.ts `snapshotFor`). */
  snapshots?: SnapshotProvider;
}

/**
 * Remote bots' sockets, keyed by botId (and ws.id → botId). One socket per bot: a reconnect
 * replaces the old one. Action requests carry a requestId; late, duplicate and foreign answers
 * are ignored, an illegal one gets an `error` and the request stays open until its deadline.
 */
export class BotGateway {
  private readonly socketsByBot = new Map<string, BotSocket>();
  private readonly botBySocket = new Map<string, string>();
  /** The open action requests, one per bot (open-requests.ts). */
  private readonly requests: OpenRequests;
  private readonly snapshotProvider: SnapshotProvider;
  /** Each socket's key, re-checked before the bot plays (key-rechecks.ts). */
  private readonly keys = new KeyRechecks(() => this.keyCheck);
  /**
   * Checks a socket's key against the database: a key rotated or a bot retired on any node, with
   * or without the bus, plays nothing more (key-rechecks.ts).
   */
  private readonly keyCheck: KeyCheck | undefined;
  /** Reaches bots whose socket is on another node (set when the node joins its cluster). */
  relay: GatewayRelay | undefined;
  /** Told where bots connect and disconnect (bot_presence: the ladder pairs only connected bots). */
  private readonly presence: PresenceRecorder | undefined;

  /**
   * `limiter` bounds what a bot may send besides answers to its open request: answering is never
   * limited (a match against built-ins legitimately asks hundreds of times a second).
   */
  constructor(
    private readonly clock: Clock,
    private readonly limiter?: RateLimiter,
    /** The node's key check, presence and snapshots (absent in `cli play`: one process, no database). */
    links: GatewayLinks = {},
  ) {
    this.keyCheck = links.keyCheck;
    this.presence = links.presence;
    this.snapshotProvider = links.snapshots ?? (() => null);
    this.requests = new OpenRequests(clock, (botId, message) => {
      this.relay?.listen(botId);
      this.send(botId, message);
    });
  }

  /** Server-side turnaround (OpenRequests.turnaround): a legal action in → its table's next request out. */
  get turnaround() {
    return this.requests.turnaround;
  }

  isConnected(botId: string): boolean {
    return this.socketsByBot.has(botId);
  }

  /** `keyHash`: the SHA-256 of the api key the socket was opened with (re-checked before it plays). */
  connect(botId: string, socket: BotSocket, welcome: ServerMessage, keyHash?: string): void {
    const previous = this.socketsByBot.get(botId);
    if (previous && previous.id !== socket.id) {
      this.botBySocket.delete(previous.id);
      safeSend(previous, REPLACED);
      closeQuietly(previous, 4000, "replaced by a new connection");
    }
    this.socketsByBot.set(botId, socket);
    this.botBySocket.set(socket.id, botId);
    this.keys.opened(botId, socket.id, keyHash);
    safeSend(socket, welcome);
    const snapshot = this.snapshotProvider(botId);
    if (snapshot) this.deliver(botId, socket, snapshot);
    const pending = this.requests.of(botId);
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
    this.keys.socketGone(socket.id);
    this.relay?.socketGone(botId);
    safeSend(socket, REPLACED);
    closeQuietly(socket, 4000, "replaced by a new connection");
  }

  /** The bot's api key was rotated: a socket opened with the old key is closed (code 4001). */
  revoke(botId: string): void {
    const socket = this.socketsByBot.get(botId);
    if (!socket) return;
    safeSend(socket, { type: "error", code: "KEY_ROTATED", message: "This bot's api key was rotated: connect again with the new key" });
    closeQuietly(socket, 4001, "api key rotated");
  }

  /** The bot reconnected on another node: send it what a local reconnect gets (snapshot, open request). */
  resendState(botId: string): void {
    if (this.socketsByBot.has(botId)) return;
    const snapshot = this.snapshotProvider(botId);
    if (snapshot) this.send(botId, snapshot);
    const pending = this.requests.of(botId);
    if (pending) this.send(botId, pending.message);
  }

  /** A disconnect answers the open request at once with "no answer" (check, else fold). */
  disconnect(socket: BotSocket): void {
    const botId = this.botBySocket.get(socket.id);
    if (!botId) return;
    this.botBySocket.delete(socket.id);
    this.keys.socketGone(socket.id);
    if (this.socketsByBot.get(botId)?.id === socket.id) {
      this.socketsByBot.delete(botId);
      this.keys.botGone(botId);
      this.presence?.closed(botId);
      this.requests.settle(botId, null);
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
    this.keys.afterVerdict(botId, () => this.deliverChecked(botId, socket, message));
  }

  private deliverChecked(botId: string, socket: BotSocket, message: ServerMessage): void {
    if (this.keys.refused(botId) || this.socketsByBot.get(botId)?.id !== socket.id) return;
    if (KEY_RECHECKED.has(message.type)) {
      this.keys.recheck(botId, socket.id, () => {
        if (this.socketsByBot.get(botId)?.id !== socket.id) return;
        this.revoke(botId);
        this.disconnect(socket);
      });
    }
    safeSend(socket, message);
  }

  /** The bot's table is over (or the bot left): stop listening for its answers from other nodes. */
  forget(botId: string): void {
    if (!this.requests.has(botId)) this.relay?.stopListening(botId);
  }

  /**
   * Sends an action_request and resolves with the first answer `check` accepts, or null at the
   * deadline (or on disconnect). `build` receives the requestId to embed in the message.
   */
  requestAction(
    botId: string,
    deadlineMs: number,
    build: (requestId: string) => ActionRequestMessage,
    check: (action: PlayerAction) => string | null,
  ): Promise<{ action: PlayerAction; answeredAt: number } | null> {
    return this.requests.open(botId, deadlineMs, build, check);
  }

  /** Cancels an open request (e.g. the table is shutting down). */
  cancel(botId: string): void {
    this.requests.settle(botId, null);
  }

  /** An `action` for the bot's open request, from its socket here or relayed: OpenRequests.answer. */
  answer(botId: string, message: Record<string, unknown>): ErrorMessage | null {
    return this.requests.answer(botId, message);
  }

  /** Handles one message from a socket. */
  receive(socket: BotSocket, raw: unknown): void {
    const arrivedAt = performance.now();
    const botId = this.botBySocket.get(socket.id);
    if (!botId) return;
    if (this.keys.refused(botId)) return;
    const message = parseMessage(raw);
    const pending = this.requests.of(botId);
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
    if (message?.type !== "action") return safeSend(socket, replyToNonAnswer(message, this.clock.now()));
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
      if (tableId !== undefined) this.requests.actionArrived(tableId, arrivedAt);
      return;
    }
    // Illegal answers to the open request count against the bot's message budget: past it, the
    // request is answered for the bot (check, else fold) instead of being checked again and again.
    if (answersOpenRequest && reply.code === "ILLEGAL_ACTION" && this.limiter && !this.limiter.take(botId).allowed) {
      safeSend(socket, { type: "error", code: "RATE_LIMITED", message: "Too many illegal answers: this request was answered for you (check, else fold)" });
      this.requests.settle(botId, null);
      return;
    }
    safeSend(socket, reply);
  }

  /**
   * An answer that did not come on a socket (an agent's `act` over MCP, on whichever node its call
   * landed): to the open request here, else forwarded to the node whose table asked. null: accepted.
   */
  async answerFromAnywhere(botId: string, message: Record<string, unknown>): Promise<ServerMessage | null> {
    if (this.requests.has(botId) || !this.relay) return this.answer(botId, message);
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
    if (!this.socketsByBot.has(botId)) this.requests.settle(botId, null);
  }

  pendingRequest(botId: string): ActionRequestMessage | null {
    return this.requests.of(botId)?.message ?? null;
  }

  closeAll(): void {
    this.requests.settleAll();
    for (const socket of this.socketsByBot.values()) closeQuietly(socket, 1001, "server shutting down");
    this.socketsByBot.clear();
    this.botBySocket.clear();
  }
}

const REPLACED: ServerMessage = { type: "error", code: "REPLACED", message: "Another connection for this bot took over" };

function closeQuietly(socket: BotSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {}
}

function safeSend(socket: BotSocket, message: ServerMessage): void {
  try {
    socket.send(JSON.stringify(message));
  } catch {}
}
