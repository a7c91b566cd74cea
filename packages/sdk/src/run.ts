import { connect, type BotClient } from "./client.ts";
import { configPath, profileOf, readConfig, resolveServer, type Env } from "./config.ts";
import { jsonLogger, type LogLevel, type Logger } from "./logger.ts";
import { readableLogger } from "./readable-logger.ts";
import type { MatchEndedMessage } from "./messages.ts";
import type { BotDefinition } from "./session.ts";

export const RUN_HELP = `Run a bot against the service.

Usage: bun <bot-file.ts> [--bot <name> | --key <pbk_…>] [--server <url>] [--once] [--log-level <level>] [--json]

  --bot <name>        use the api key saved by \`bun run cli -- bots create <name>\` (env POKER_BOT)
  --key <pbk_…>       the bot's api key (env POKER_API_KEY)
  --server <url>      the service (env POKER_SERVER, else the CLI config, else http://localhost:3000)
  --once              exit after the first match ends
  --log-level <lvl>   debug | info | warn | error (default info; debug shows every hand and action)
  --json              logs as JSON lines (the default when stderr is not a terminal); on a
                      terminal they are readable lines. Logs go to stderr.

After a match the bot stays connected and idle until it is seated again (\`--once\` exits instead).
`;

export interface RunOptions {
  argv?: string[];
  env?: Env;
  logger?: Logger;
  /** Is stderr a terminal (readable logs)? Default: process.stderr.isTTY. */
  isTTY?: boolean;
  /** Where log lines go. Default: stderr. */
  write?: (line: string) => void;
}

/** Readable lines on a terminal; JSON lines when piped, with --json, or POKER_LOG_FORMAT=json. */
export function runLogger(argv: string[], env: Env, level: LogLevel, isTTY: boolean, write?: (line: string) => void): Logger {
  const format = argv.includes("--json") ? "json" : (env.POKER_LOG_FORMAT ?? (isTTY ? "text" : "json"));
  return format === "json" ? jsonLogger({ level, write }) : readableLogger({ level, write });
}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(name + "="));
  return eq?.slice(name.length + 1);
}

/** Resolves the api key and server from flags, env and the CLI config file. */
export function resolveRunOptions(argv: string[], env: Env): { apiKey: string; server: string; once: boolean; level: LogLevel } {
  const config = readConfig(configPath(env));
  const server = resolveServer(flag(argv, "--server"), env, config);
  const botName = flag(argv, "--bot") ?? env.POKER_BOT;
  let apiKey = flag(argv, "--key") ?? env.POKER_API_KEY;
  if (!apiKey && botName) {
    // Keys are kept per server: a bot of one server has no key on another.
    apiKey = profileOf(config, server).bots?.[botName]?.apiKey;
    if (!apiKey) throw new Error(`no api key saved for bot "${botName}" on ${server} in ${configPath(env)}: create it with \`bun run cli -- bots create ${botName}\` or pass --key`);
  }
  if (!apiKey) throw new Error("no api key: pass --bot <name> (saved by the CLI) or --key pbk_… (or set POKER_API_KEY)");
  const level = (flag(argv, "--log-level") ?? env.POKER_LOG_LEVEL ?? "info") as LogLevel;
  return { apiKey, server, once: argv.includes("--once"), level };
}

/**
 * The `if (import.meta.main) runBot(bot)` entry of a bot file: reads flags/env, connects, and
 * with --once exits the process when the match ends (exit code 1 on a fatal error).
 */
export async function runBot(bot: BotDefinition, options: RunOptions = {}): Promise<MatchEndedMessage | null> {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(RUN_HELP);
    return null;
  }
  let client: BotClient;
  try {
    const resolved = resolveRunOptions(argv, env);
    client = connect(bot, { apiKey: resolved.apiKey, server: resolved.server, once: resolved.once, logger: options.logger ?? runLogger(argv, env, resolved.level, options.isTTY ?? Boolean(process.stderr.isTTY), options.write) });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
    return null;
  }
  const stop = () => client.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    return await client.done;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
    return null;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
