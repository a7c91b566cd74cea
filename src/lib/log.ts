import pino, { type Logger } from "pino";

/**
 * The log seam: every part of the service logs through `Log` — (message, error?, fields?) — as it
 * always has; underneath, one JSON line per event (pino) with level, time, node, msg, the error
 * (type, message, stack) and the ids that say what it was about. LOG_FORMAT=pretty (the default
 * when stderr is a terminal) prints the same events one readable line each.
 *
 * Secrets never reach a line: call sites pass ids, never keys, tokens or cards, and the redaction
 * below is the safety net for what an error object may carry (a driver error's query parameters
 * hold the rows being written, hand records with hole cards among them).
 */
export interface LogFields {
  requestId?: string;
  developerId?: string;
  botId?: string;
  tableId?: string;
  matchId?: string;
  [key: string]: unknown;
}

export type Log = (message: string, error?: unknown, fields?: LogFields) => void;

export type LogFormat = "json" | "pretty";

const REDACTED = [
  "apiKey", "token", "authorization", "password", "holeCards", "deckSecret",
  "*.apiKey", "*.token", "*.authorization", "*.password", "*.holeCards", "*.deckSecret",
  "err.parameters", "err.cause.parameters", "err.params", "err.cause.params", "err.cause.cause.parameters",
];

/** Drizzle puts a failed query's parameters in the error's message (and so its stack): cut them out. */
const PARAMS_IN_TEXT = /\nparams: [\s\S]*?(?=\n\s+at |$)/;

function scrubbed(serialized: Record<string, unknown>, depth = 0): Record<string, unknown> {
  for (const key of ["message", "stack"]) {
    if (typeof serialized[key] === "string") serialized[key] = (serialized[key] as string).replace(PARAMS_IN_TEXT, "\nparams: [redacted]");
  }
  const cause = serialized.cause;
  if (cause && typeof cause === "object" && depth < 4) scrubbed(cause as Record<string, unknown>, depth + 1);
  return serialized;
}

export interface LoggerOptions {
  node: string;
  format?: LogFormat;
  /** LOG_LEVEL: info by default; debug adds one line per HTTP request. */
  level?: string;
  /** Where lines go (tests capture them); default stderr. */
  destination?: { write(line: string): unknown };
}

export function logFormatFrom(value: string | undefined, isTerminal: boolean): LogFormat {
  if (value === "pretty" || value === "json") return value;
  if (value) throw new Error(`LOG_FORMAT must be json or pretty, got "${value}"`);
  return isTerminal ? "pretty" : "json";
}

export function createLogger(options: LoggerOptions): Logger {
  const json = options.destination ?? pino.destination({ dest: 2, sync: true });
  const destination = options.format === "pretty" ? prettyStream(json) : json;
  return pino(
    {
      level: options.level ?? "info",
      base: { node: options.node },
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: "[redacted]" },
      serializers: { err: (error) => scrubbed(pino.stdSerializers.err(error) as unknown as Record<string, unknown>) },
    },
    destination as pino.DestinationStream,
  );
}

/** The `Log` seam over a pino logger: with an error, level error; without, info. */
export function logTo(logger: Logger): Log {
  return (message, error, fields) => {
    if (error === undefined || error === "") logger.info(fields ?? {}, message);
    else logger.error({ ...fields, err: error instanceof Error ? error : { message: String(error) } }, message);
  };
}

const LEVEL_COLOURS: Record<string, string> = { fatal: "\x1b[35m", error: "\x1b[31m", warn: "\x1b[33m", info: "\x1b[32m", debug: "\x1b[90m", trace: "\x1b[90m" };
const STANDARD = new Set(["level", "time", "node", "msg", "err"]);

/** One readable line per event (for a terminal); the stack, if any, below it. */
function prettyStream(out: { write(line: string): unknown }) {
  return {
    write(line: string) {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line);
      } catch {
        return out.write(line);
      }
      const level = String(event.level);
      const time = String(event.time).slice(11, 23);
      const extra = Object.entries(event).filter(([key]) => !STANDARD.has(key)).map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
      const err = event.err as { message?: string; stack?: string } | undefined;
      const text = `${time} ${LEVEL_COLOURS[level] ?? ""}${level.toUpperCase().padEnd(5)}\x1b[0m ${event.node} ${event.msg}${extra.length ? ` \x1b[90m${extra.join(" ")}\x1b[0m` : ""}${err ? `\n  ${err.stack ?? err.message}` : ""}\n`;
      return out.write(text);
    },
  };
}
