import { connect, type BotClient } from "./client.ts";
import { configPath, readConfig, resolveServer, type Env } from "./config.ts";
import { jsonLogger, type LogLevel, type Logger } from "./logger.ts";
import type { MatchEndedMessage } from "./messages.ts";
import type { BotDefinition } from "./session.ts";

export const RUN_HELP = `Run a bot against the service.

Usage: bun <bot-file.ts> [--bot <name> | --key <pbk_…>] [--server <url>] [--once] [--log-level <level>]

  --bot <name>        use the api key saved by \`bun run cli -- bots create <name>\` (env POKER_BOT)
  --key <pbk_…>       the bot's api key (env POKER_API_KEY)
  --server <url>      the service (env POKER_SERVER, else the CLI config, else http://localhost:3000)
  --once              exit after the first match ends
  --log-level <lvl>   debug | info | warn | error (default info); logs are JSON lines on stderr
`;

export interface RunOptions {
  argv?: string[];
  env?: Env;
  logger?: Logger;
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
  const botName = flag(argv, "--bot") ?? env.POKER_BOT;
  let apiKey = flag(argv, "--key") ?? env.POKER_API_KEY;
  if (!apiKey && botName) {
    apiKey = config.bots?.[botName]?.apiKey;
    if (!apiKey) throw new Error(`no api key saved for bot "${botName}" in ${configPath(env)}: create it with \`bun run cli -- bots create ${botName}\` or pass --key`);
  }
  if (!apiKey) throw new Error("no api key: pass --bot <name> (saved by the CLI) or --key pbk_… (or set POKER_API_KEY)");
  const level = (flag(argv, "--log-level") ?? env.POKER_LOG_LEVEL ?? "info") as LogLevel;
  return { apiKey, server: resolveServer(flag(argv, "--server"), env, config), once: argv.includes("--once"), level };
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
    client = connect(bot, { apiKey: resolved.apiKey, server: resolved.server, once: resolved.once, logger: options.logger ?? jsonLogger({ level: resolved.level }) });
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
