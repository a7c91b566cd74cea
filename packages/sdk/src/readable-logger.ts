/** Log entries as lines a person reads (the bot runner's default on a terminal); JSON stays the default when piped. */
import { LOG_LEVEL_ORDER, type LogEntry, type LogLevel, type Logger } from "./logger.ts";

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** One line for an entry; null for entries that say nothing to a person at this level. */
export function describeEntry(e: LogEntry): string | null {
  const bot = e.name ? String(e.name) : e.botId ? String(e.botId) : "bot";
  switch (e.event) {
    case "connected":
      return `connected as ${e.name} (${e.botId}), protocol v${e.protocolVersion}`;
    case "waiting_for_seat":
      return `waiting for a seat: seat it with \`bun run cli -- tables join <tableId> --bot ${e.name ?? "<name>"}\`, or enter it in the ladder (\`bun run cli -- ladder enter ${e.name ?? "<name>"}\`) (Ctrl-C to stop)`;
    case "hosted":
      return String(e.message);
    case "seated":
      return `seated at table ${e.tableId}: the match starts when all ${e.seats} seats are taken`;
    case "resumed":
      return `back in match ${e.matchId} at table ${e.tableId} (hand ${e.handNumber}${e.inHand ? ", in a hand" : ""})`;
    case "joined_in_progress":
      return `joined match ${e.matchId} at table ${e.tableId}, already under way (hand ${e.handNumber}${e.inHand ? ", in a hand" : ""})`;
    case "match_started":
      return `match ${e.matchId} started at table ${e.tableId}: seat ${e.seat}, ${e.players} players`;
    case "match_ended":
      return `match ${e.matchId} over after ${e.handsPlayed} hands: ${e.finalChips} chips (${signed(Number(e.profit ?? 0))})`;
    case "reconnecting":
      if (!e.everConnected)
        return `cannot reach the service at ${e.server}${e.reason ? ` (${e.reason})` : ""}: is it running (\`bun run start\`)? Another address: --server or POKER_SERVER. Retrying in ${seconds(Number(e.delayMs))} (attempt ${e.attempt})`;
      return `connection lost (code ${e.code}); reconnecting in ${seconds(Number(e.delayMs))} (attempt ${e.attempt})`;
    case "replaced":
    case "unauthorized":
      return `${bot}: ${e.reason}`;
    case "illegal_action":
      return `hand ${e.handNumber}: ${e.reason}; sent ${e.sent} instead`;
    case "decide_failed":
      return `hand ${e.handNumber}: decide() threw: ${e.error} (checked or folded for you)`;
    case "hook_failed":
      return `${e.hook} threw: ${e.error}`;
    case "server_error":
      return `the server says ${e.code}: ${e.message}`;
    case "send_dropped":
      return `not connected: ${e.reason}`;
    case "hand_started":
      return `hand ${e.handNumber}: dealt ${(e.holeCards as string[] | undefined)?.join(" ") ?? "?"}, button seat ${e.button}`;
    case "action":
      return `hand ${e.handNumber} ${e.street}: ${e.action}${e.amount !== undefined ? ` ${e.amount}` : ""} (${e.ms} ms)`;
    case "hand_ended":
      return `hand ${e.handNumber} over · board ${(e.board as string[] | undefined)?.join(" ") || "none"}`;
    case "raise_clamped":
      return `hand ${e.handNumber}: raise ${e.asked} clamped to ${e.sent}`;
    default: {
      const { level: _level, event, ...rest } = e;
      return `${event} ${JSON.stringify(rest)}`;
    }
  }
}

/** Lines with a time and, for warnings and errors, the level; entries below `level` are dropped. */
export function readableLogger(options: { level?: LogLevel; write?: (line: string) => void; now?: () => Date } = {}): Logger {
  const min = LOG_LEVEL_ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const now = options.now ?? (() => new Date());
  return (entry) => {
    if (LOG_LEVEL_ORDER[entry.level] < min) return;
    const line = describeEntry(entry);
    if (line === null) return;
    const level = entry.level === "warn" || entry.level === "error" ? `${entry.level}: ` : "";
    write(`${now().toTimeString().slice(0, 8)} ${level}${line}`);
  };
}
