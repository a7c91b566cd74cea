import { check, fold, type Action } from "./actions.ts";
import type { Logger } from "./logger.ts";
import type {
  ActionRequestMessage,
  BotMessage,
  HandEndedMessage,
  HandStartedMessage,
  MatchEndedMessage,
  MatchStartedMessage,
  ServerMessage,
  SnapshotMessage,
} from "./messages.ts";
import { decisionState, type DecisionState, type HandContext } from "./state.ts";

export type DecideResult = Action | undefined | null | void;

/** A bot: the same object runs against a server (connect/runBot) and in local matches (`cli play`). */
export interface BotDefinition {
  /** For logs and local matches. */
  name?: string;
  /** Your turn: return an action (fold(), check(), call(), raiseTo(n)). Illegal or nothing: check, else fold. */
  decide(state: DecisionState): DecideResult | Promise<DecideResult>;
  onMatchStarted?(message: MatchStartedMessage): void;
  onHandStarted?(message: HandStartedMessage): void;
  onHandEnded?(message: HandEndedMessage): void;
  onMatchEnded?(message: MatchEndedMessage): void;
  /** Every message, before the SDK handles it. */
  onMessage?(message: ServerMessage): void;
}

/** Identity function that gives a bot object its type. */
export function defineBot<T extends BotDefinition>(bot: T): T {
  return bot;
}

/** Turns whatever decide() returned into a legal answer: the fallback is check, else fold. */
export function legalize(result: unknown, state: DecisionState, log: Logger): Action {
  const fallback = state.legal.has("check") ? check() : fold();
  const warn = (reason: string) => {
    log({ level: "warn", event: "illegal_action", botId: state.botId, handNumber: state.handNumber, reason, returned: result ?? null, sent: fallback.action });
    return fallback;
  };
  if (!result || typeof result !== "object") return warn("decide returned no action");
  const { action, amount } = result as { action?: unknown; amount?: unknown };
  switch (action) {
    case "fold":
      return fold();
    case "check":
      return state.legal.has("check") ? check() : warn("check is not legal: there is a bet to call");
    case "call":
      if (state.legal.has("call")) return { action: "call" };
      return state.legal.has("check") ? check() : warn("call is not legal");
    case "raise": {
      if (!state.legal.has("raise") || state.minRaiseTo === null || state.maxRaiseTo === null) return warn("raise is not legal now");
      if (typeof amount !== "number" || !Number.isFinite(amount)) return warn("raise needs a numeric amount (the total to raise to)");
      const clamped = Math.max(state.minRaiseTo, Math.min(state.maxRaiseTo, Math.floor(amount)));
      if (clamped !== amount) {
        log({ level: "debug", event: "raise_clamped", botId: state.botId, handNumber: state.handNumber, asked: amount, sent: clamped });
      }
      return { action: "raise", amount: clamped };
    }
    default:
      return warn(`unknown action ${JSON.stringify(action)}`);
  }
}

/**
 * The transport-free heart of a bot: feed it server messages, it keeps the hand context, calls
 * decide() on action requests and sends answers through `send`. Used over WebSocket and locally.
 */
export class BotSession {
  readonly context: HandContext = { botId: null, matchId: null, config: null, handNumber: 0, button: null, history: [] };
  private readonly inFlight = new Set<string>();
  /** The table the bot sits at (from snapshot or match_started; cleared at match_ended): null while it waits for a seat. */
  tableId: string | null = null;

  constructor(
    readonly bot: BotDefinition,
    private readonly send: (message: BotMessage) => void,
    private readonly log: Logger,
    botId: string | null = null,
  ) {
    this.context.botId = botId;
  }

  private hook<K extends "onMatchStarted" | "onHandStarted" | "onHandEnded" | "onMatchEnded" | "onMessage">(name: K, message: any): void {
    const fn = this.bot[name] as ((m: unknown) => void) | undefined;
    if (!fn) return;
    try {
      fn.call(this.bot, message);
    } catch (error) {
      this.log({ level: "error", event: "hook_failed", botId: this.context.botId, handNumber: this.context.handNumber, hook: name, error: String(error) });
    }
  }

  async handle(message: ServerMessage): Promise<void> {
    const ctx = this.context;
    this.hook("onMessage", message);
    switch (message.type) {
      case "welcome":
        ctx.botId = message.botId;
        this.log({ level: "info", event: "connected", botId: message.botId, handNumber: null, name: message.name, protocolVersion: message.protocolVersion });
        // Its uploaded code plays it: this connection is never seated (docs/PROTOCOL.md, welcome).
        if (message.hosted) this.log({ level: "warn", event: "hosted", botId: message.botId, handNumber: null, codeVersion: message.hosted.codeVersion, message: message.hosted.message });
        return;
      case "snapshot":
        this.resume(message);
        return;
      case "match_started":
        ctx.matchId = message.matchId;
        this.tableId = message.tableId;
        ctx.config = message.config;
        ctx.handNumber = 0;
        ctx.button = null;
        ctx.history = [];
        this.log({ level: "info", event: "match_started", botId: ctx.botId, handNumber: 0, matchId: message.matchId, tableId: message.tableId, seat: message.yourSeat, players: message.seats.length });
        this.hook("onMatchStarted", message);
        return;
      case "hand_started":
        ctx.matchId = message.matchId;
        ctx.handNumber = message.handNumber;
        ctx.button = message.button;
        ctx.history = [];
        if (ctx.config) ctx.config = { ...ctx.config, smallBlind: message.smallBlind, bigBlind: message.bigBlind };
        this.log({ level: "debug", event: "hand_started", botId: ctx.botId, handNumber: message.handNumber, holeCards: message.holeCards, button: message.button });
        this.hook("onHandStarted", message);
        return;
      case "action":
        if (message.handNumber === ctx.handNumber) ctx.history.push(message);
        return;
      case "action_request":
        await this.answer(message);
        return;
      case "hand_ended":
        this.log({
          level: "debug",
          event: "hand_ended",
          botId: ctx.botId,
          handNumber: message.handNumber,
          board: message.board,
          pots: message.pots,
        });
        this.hook("onHandEnded", message);
        return;
      case "match_ended": {
        const me = message.players.find((p) => p.botId === ctx.botId);
        this.tableId = null;
        this.log({ level: "info", event: "match_ended", botId: ctx.botId, handNumber: ctx.handNumber, matchId: message.matchId, handsPlayed: message.handsPlayed, finalChips: me?.finalChips ?? null, profit: me?.profit ?? null });
        this.hook("onMatchEnded", message);
        return;
      }
      case "error":
        if (message.code === "BOT_HOSTED") {
          this.log({ level: "warn", event: "hosted", botId: ctx.botId, handNumber: null, codeVersion: null, message: message.message });
          return;
        }
        this.log({ level: message.code === "STALE_REQUEST" ? "debug" : "warn", event: "server_error", botId: ctx.botId, handNumber: ctx.handNumber, code: message.code, message: message.message, requestId: message.requestId });
        return;
      default:
        return;
    }
  }

  private resume(message: SnapshotMessage): void {
    const ctx = this.context;
    // Resuming is coming back to a match this session already played in; a first connection to a
    // match that started without it is joining one in progress (the server sends both a snapshot).
    const known = ctx.matchId === message.matchId;
    if (ctx.handNumber !== message.handNumber) ctx.history = [];
    ctx.matchId = message.matchId;
    ctx.config = message.config;
    ctx.handNumber = message.handNumber;
    ctx.button = message.hand?.button ?? ctx.button;
    this.tableId = message.tableId;
    // A snapshot of a table whose match has not started is a seat, not a resumption.
    if (message.matchId === null) {
      this.log({ level: "info", event: "seated", botId: ctx.botId, handNumber: 0, tableId: message.tableId, status: message.status, seats: message.config.maxPlayers });
      return;
    }
    this.log({ level: "info", event: known ? "resumed" : "joined_in_progress", botId: ctx.botId, handNumber: message.handNumber, tableId: message.tableId, matchId: message.matchId, status: message.status, inHand: message.hand !== null });
  }

  private async answer(request: ActionRequestMessage): Promise<void> {
    if (this.inFlight.has(request.requestId)) return; // re-sent while decide() is still thinking
    this.inFlight.add(request.requestId);
    const state = decisionState(request, this.context);
    let result: unknown;
    const started = performance.now();
    try {
      result = await this.bot.decide(state);
    } catch (error) {
      this.log({ level: "error", event: "decide_failed", botId: state.botId, handNumber: state.handNumber, error: error instanceof Error ? error.message : String(error) });
      result = undefined;
    } finally {
      this.inFlight.delete(request.requestId);
    }
    const action = legalize(result, state, this.log);
    this.log({ level: "debug", event: "action", botId: state.botId, handNumber: state.handNumber, street: state.street, action: action.action, amount: action.amount, ms: Math.round(performance.now() - started) });
    this.send({ type: "action", requestId: request.requestId, ...action });
  }
}
