/** Structured logs: one object per event (level, event, botId, handNumber, …). */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogEntry {
  level: LogLevel;
  event: string;
  botId?: string | null;
  handNumber?: number | null;
  [field: string]: unknown;
}

export type Logger = (entry: LogEntry) => void;

export const LOG_LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** JSON lines (with a timestamp) to a writer, default stderr; entries below `level` are dropped. */
export function jsonLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const min = LOG_LEVEL_ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  return (entry) => {
    if (LOG_LEVEL_ORDER[entry.level] < min) return;
    write(JSON.stringify({ ts: new Date().toISOString(), ...entry }));
  };
}

export const silentLogger: Logger = () => {};

/** Keeps entries in memory (tests, local matches). */
export function memoryLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const logger = ((entry: LogEntry) => void entries.push(entry)) as Logger & { entries: LogEntry[] };
  logger.entries = entries;
  return logger;
}
