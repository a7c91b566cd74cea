import { jsonLogger, type Logger } from "./logger.ts";
import { parseServerMessage, type BotMessage, type MatchEndedMessage } from "./messages.ts";
import { BotSession, type BotDefinition } from "./session.ts";

export interface ConnectOptions {
  apiKey: string;
  /** http(s):// or ws(s):// base URL of the service. */
  server: string;
  /** Stop after the first match_ended (the process can then exit). */
  once?: boolean;
  logger?: Logger;
  reconnect?: {
    /** First retry delay; doubles each failed attempt (with jitter) up to maxDelayMs. Default 250. */
    initialDelayMs?: number;
    /** Default 10 000. */
    maxDelayMs?: number;
    /** Give up after this many failed attempts in a row. Default: never. */
    maxAttempts?: number;
  };
  /** How long after `welcome` without a table's state the bot logs `waiting_for_seat`. Default 500. */
  idleNoticeMs?: number;
  /** Idle keep-alive: a ping this often (the server closes sockets idle for 120 s). Default 30 000. */
  pingIntervalMs?: number;
}

export interface BotClient {
  /** Resolves when the client stops: with the match_ended message under `once`, else null. Rejects on a fatal error (bad api key). */
  readonly done: Promise<MatchEndedMessage | null>;
  readonly session: BotSession;
  /** Is a socket open now? */
  readonly connected: boolean;
  close(): void;
  /** Drops the current socket without stopping: the client reconnects (with backoff) and resumes from the snapshot. */
  reconnectNow(): void;
}

export function wsUrl(server: string): string {
  return server.replace(/\/+$/, "").replace(/^http/, "ws") + "/api/bots/connect";
}

/** Delay before reconnect attempt `attempt` (0-based): exponential, capped, with ±50 % jitter. */
export function backoffDelay(attempt: number, initialMs = 250, maxMs = 10_000, random: () => number = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + random() * (base / 2));
}

/**
 * Connects a bot and keeps it connected: on a dropped connection it reconnects with exponential
 * backoff and jitter; the server then sends `welcome`, a `snapshot` of the table and the open
 * `action_request` again, which the session answers — the bot resumes where it was.
 */
export function connect(bot: BotDefinition, options: ConnectOptions): BotClient {
  const log = options.logger ?? jsonLogger();
  const initialMs = options.reconnect?.initialDelayMs ?? 250;
  const maxMs = options.reconnect?.maxDelayMs ?? 10_000;
  const maxAttempts = options.reconnect?.maxAttempts ?? Infinity;
  let socket: WebSocket | null = null;
  let open = false;
  let stopped = false;
  let failures = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let resolveDone!: (value: MatchEndedMessage | null) => void;
  let rejectDone!: (error: Error) => void;
  const done = new Promise<MatchEndedMessage | null>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });

  const send = (message: BotMessage) => {
    if (socket && open) socket.send(JSON.stringify(message));
    else log({ level: "warn", event: "send_dropped", botId: session.context.botId, handNumber: session.context.handNumber, reason: "not connected; the server re-sends the request on reconnect" });
  };
  const session = new BotSession(bot, send, log);

  const ping = setInterval(() => {
    if (socket && open) socket.send(JSON.stringify({ type: "ping" }));
  }, options.pingIntervalMs ?? 30_000);

  let idleTimer: ReturnType<typeof setTimeout> | null = null;
  let botName: string | null = null;
  const waitingForSeat = () => log({ level: "info", event: "waiting_for_seat", botId: session.context.botId, handNumber: null, name: botName });

  const stop = (result: MatchEndedMessage | null, error?: Error) => {
    if (stopped) return;
    stopped = true;
    clearInterval(ping);
    if (idleTimer) clearTimeout(idleTimer);
    if (retryTimer) clearTimeout(retryTimer);
    try {
      socket?.close(1000, "bye");
    } catch {}
    if (error) rejectDone(error);
    else resolveDone(result);
  };

  const dial = () => {
    if (stopped) return;
    let welcomed = false;
    const ws = new WebSocket(wsUrl(options.server), { headers: { authorization: `Bearer ${options.apiKey}` } } as any);
    socket = ws;
    ws.onopen = () => {
      open = true;
    };
    ws.onmessage = (event) => {
      const message = parseServerMessage(String(event.data));
      if (!message) return;
      if (message.type === "welcome") botName = message.name;
      // The bot's uploaded code plays it: this process is never seated. Under `once` there is no match to wait for.
      const hosted = (message.type === "welcome" && message.hosted !== undefined) || (message.type === "error" && message.code === "BOT_HOSTED");
      if (message.type === "welcome") {
        welcomed = true;
        failures = 0;
        // The table's state (if seated) follows the welcome, from whichever node hosts it.
        if (idleTimer) clearTimeout(idleTimer);
        idleTimer = setTimeout(() => session.tableId === null && !stopped && waitingForSeat(), options.idleNoticeMs ?? 500);
      }
      const handled = session.handle(message);
      if (message.type === "match_ended") handled.finally(() => (options.once ? stop(message) : waitingForSeat()));
      if (hosted && options.once) {
        handled.finally(() => stop(null, new Error(`${botName ?? "this bot"} is hosted: its uploaded code plays its matches, not this process (switch back: bun run cli -- bots unhost ${botName ?? "<bot>"})`)));
      }
    };
    let failure = "";
    ws.onerror = (event) => {
      failure = String((event as { message?: unknown }).message ?? "");
    };
    ws.onclose = (event) => {
      if (socket === ws) {
        socket = null;
        open = false;
      }
      if (stopped) return;
      if (event.code === 4000) {
        log({ level: "error", event: "replaced", botId: session.context.botId, handNumber: session.context.handNumber, reason: "another connection for this bot took over" });
        stop(null, new Error("another connection for this bot took over (REPLACED)"));
        return;
      }
      if (!welcomed && /\b401\b/.test(failure)) {
        log({ level: "error", event: "unauthorized", botId: null, handNumber: null, reason: "the server refused the api key" });
        stop(null, new Error("the server refused the api key (401): check it, or rotate it with `bun run cli -- bots rotate-key <bot>`"));
        return;
      }
      failures += 1;
      if (failures > maxAttempts) {
        stop(null, new Error(`could not connect to ${options.server} after ${maxAttempts} attempts`));
        return;
      }
      const delay = backoffDelay(failures - 1, initialMs, maxMs);
      log({ level: welcomed ? "warn" : "info", event: "reconnecting", botId: session.context.botId, handNumber: session.context.handNumber, server: options.server, everConnected: session.context.botId !== null, attempt: failures, delayMs: delay, code: event.code, ...(failure ? { reason: failure } : {}) });
      retryTimer = setTimeout(dial, delay);
    };
  };
  dial();

  return {
    done,
    session,
    get connected() {
      return open;
    },
    close: () => stop(null),
    reconnectNow: () => {
      try {
        socket?.close(1000, "reconnecting");
      } catch {}
    },
  };
}
