import type { ActionRequestMessage, ServerMessage } from "@poker-bots/protocol";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import type { Bots } from "../bots/service";
import type { BotGateway, BotSocket } from "../protocol/gateway";
import { welcomeMessage } from "../protocol/messages";

/** What an agent gets back from wait_for_turn (see WaitForTurnOutput in model.ts). */
export interface TurnAnswer {
  status: "your_turn" | "match_ended" | "idle";
  request: ActionRequestMessage | null;
  /** Everything the bot was sent since the previous answer, oldest first (the request or the match's end last). */
  events: ServerMessage[];
  /** Events left out because more than MAX_EVENTS piled up between two calls. */
  droppedEvents: number;
}

/** At most this many events are kept between two calls (an agent that polls rarely loses the oldest). */
const MAX_EVENTS = 1_000;

/**
 * An agent's bot as the gateway sees it: a socket whose messages wait in an inbox until the agent
 * polls. Whatever a WebSocket bot would be sent lands here: at the table it is a remote seat
 * (seats/remote.ts), asked by seats/decide.ts under the same clock, legality check and fallback.
 */
class AgentSocket implements BotSocket {
  readonly id = `agent_${crypto.randomUUID()}`;
  readonly via = "agent";
  private inbox: ServerMessage[] = [];
  private dropped = 0;
  /** The latest action_request not yet answered or overtaken (a table waits on this bot meanwhile). */
  openRequest: ActionRequestMessage | null = null;
  /** The requestId of the request last handed to the agent: an answer to it may have gone to another node. */
  handedOut: string | null = null;
  closed = false;
  openWaits = 0;
  lastSeenAt: number;
  presenceTimer: unknown;
  private wake: (() => void)[] = [];

  constructor(
    readonly botId: string,
    now: number,
    private readonly onClose: (socket: AgentSocket) => void,
  ) {
    this.lastSeenAt = now;
  }

  send(data: string): void {
    const message = JSON.parse(data) as ServerMessage;
    if (message.type === "welcome" || message.type === "pong") return;
    if (message.type === "action_request") this.openRequest = message;
    // Nothing else happens at a table while it waits on this bot: any other deal message means the request was settled.
    else if (this.openRequest && message.type !== "error" && message.type !== "snapshot") this.openRequest = null;
    this.inbox.push(message);
    if (this.inbox.length > MAX_EVENTS) {
      this.inbox.shift();
      this.dropped += 1;
    }
    for (const wake of this.wake.splice(0)) wake();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    for (const wake of this.wake.splice(0)) wake();
  }

  /** The answer to give now, or null when there is nothing to answer yet. */
  ready(): TurnAnswer | null {
    const endIndex = this.inbox.findIndex((message) => message.type === "match_ended");
    if (endIndex >= 0) return this.drain("match_ended", endIndex + 1, null);
    if (this.openRequest) return this.drain("your_turn", this.inbox.length, this.openRequest);
    return null;
  }

  drain(status: TurnAnswer["status"], count: number, request: ActionRequestMessage | null): TurnAnswer {
    const answer = { status, request, events: this.inbox.splice(0, count), droppedEvents: this.dropped };
    this.dropped = 0;
    return answer;
  }

  /** Resolves at the next message or close, or after `ms`. */
  nextMessage(clock: Clock, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = clock.setTimeout(resolve, ms);
      this.wake.push(() => {
        clock.clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * Bots played by agents through /mcp, on this node. An agent's bot counts as connected (to the
 * gateway, to bot_presence and so to the ladder's BOT_OFFLINE) while a wait_for_turn is open and
 * for `presenceMs` after its last call; then its socket closes as a WebSocket's would (an open
 * request is answered check, else fold). Calls are stateless: a call on another node connects the
 * bot there, and the gateway's relay moves its state over as for a WebSocket reconnect.
 */
export class AgentSeats {
  private readonly sockets = new Map<string, AgentSocket>();

  constructor(
    private readonly deps: { bots: Bots; gateway: BotGateway; clock: Clock; presenceMs: number; maxWaitMs: number },
  ) {}

  /** Bots whose agent counts as connected on this node now. */
  connectedHere(botId: string): boolean {
    return this.sockets.has(botId);
  }

  async waitForTurn(developerId: string, botId: string, timeoutMs: number): Promise<TurnAnswer> {
    await this.playableBot(developerId, botId);
    const socket = await this.socketFor(botId);
    const { clock } = this.deps;
    const until = clock.now() + Math.min(timeoutMs, this.deps.maxWaitMs);
    socket.openWaits += 1;
    try {
      for (;;) {
        const handedOut = socket.openRequest?.requestId;
        // Answered already, perhaps through another node (calls are stateless): the table's news of it may not be here yet.
        if (handedOut !== undefined && handedOut === socket.handedOut && !(await this.deps.gateway.isRequestOpen(botId, handedOut))) {
          if (socket.openRequest?.requestId === handedOut) socket.openRequest = null;
        }
        const answer = socket.ready();
        if (answer) {
          socket.handedOut = answer.request?.requestId ?? null;
          return answer;
        }
        const left = until - clock.now();
        if (left <= 0 || socket.closed) return socket.drain("idle", Number.MAX_SAFE_INTEGER, null);
        await socket.nextMessage(clock, left);
      }
    } finally {
      socket.openWaits -= 1;
      this.seen(socket);
    }
  }

  /** null: accepted; else the gateway's error (ILLEGAL_ACTION: the request stays open; STALE_REQUEST). */
  async act(developerId: string, botId: string, answer: { requestId: string; action: string; amount?: number }): Promise<ServerMessage | null> {
    await this.playableBot(developerId, botId);
    const reply = await this.deps.gateway.answerFromAnywhere(botId, { type: "action", ...answer });
    const socket = this.sockets.get(botId);
    if (socket) {
      if (reply === null && socket.openRequest?.requestId === answer.requestId) socket.openRequest = null;
      this.seen(socket);
    }
    return reply;
  }

  closeAll(): void {
    for (const socket of [...this.sockets.values()]) this.disconnect(socket);
  }

  private async playableBot(developerId: string, botId: string) {
    const bot = await this.deps.bots.findOwned(developerId, botId);
    if (bot.retiredAt) throw errors.conflict("BOT_RETIRED", "This bot is retired");
    if (bot.strategy) throw errors.conflict("BUILT_IN_BOT", "The service plays this bot itself (a built-in strategy): an agent plays a bot created without one");
    return bot;
  }

  private async socketFor(botId: string): Promise<AgentSocket> {
    const existing = this.sockets.get(botId);
    if (existing && !existing.closed) return existing;
    const bot = await this.deps.bots.find(botId);
    const hostedVersion = (await this.deps.bots.codeVersions([botId])).get(botId);
    if (hostedVersion !== undefined) throw errors.conflict("CONFLICT", `This bot is hosted (code version ${hostedVersion}): its code plays, not an agent. Remove the code (DELETE /api/bots/${botId}/code) to play it here`);
    const again = this.sockets.get(botId);
    if (again && !again.closed) return again;
    const socket = new AgentSocket(botId, this.deps.clock.now(), (closed) => this.forget(closed));
    this.sockets.set(botId, socket);
    this.deps.gateway.connect(botId, socket, welcomeMessage(bot, new Date(this.deps.clock.now()), undefined));
    return socket;
  }

  /** The agent called: it stays connected for presenceMs after this (a wait still open keeps it connected anyway). */
  private seen(socket: AgentSocket): void {
    const { clock, presenceMs } = this.deps;
    socket.lastSeenAt = clock.now();
    clock.clearTimeout(socket.presenceTimer);
    socket.presenceTimer = clock.setTimeout(() => {
      if (socket.openWaits === 0 && clock.now() - socket.lastSeenAt >= presenceMs) this.disconnect(socket);
    }, presenceMs);
  }

  private disconnect(socket: AgentSocket): void {
    this.deps.gateway.disconnect(socket);
    socket.close();
  }

  /** The gateway closed it (replaced by a connection elsewhere, key rotated, shutdown) or the agent went quiet. */
  private forget(socket: AgentSocket): void {
    this.deps.clock.clearTimeout(socket.presenceTimer);
    if (this.sockets.get(socket.botId) === socket) this.sockets.delete(socket.botId);
  }
}
