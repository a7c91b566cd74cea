import { mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The file the CLI writes (`bun run cli -- login`, `bots create`) and bots may read their key from. */
export interface PokerConfig {
  server?: string;
  token?: string;
  email?: string;
  /** Bots created through the CLI, by name: remote bots keep their api key here. */
  bots?: Record<string, { botId: string; apiKey?: string; strategy?: string | null }>;
  /** The last table created, for `last` in table commands. */
  lastTableId?: string;
}

export type Env = Record<string, string | undefined>;

export const DEFAULT_SERVER = "http://localhost:3000";

/** `POKER_CONFIG`, else ~/.config/poker-bots/config.json. */
export function configPath(env: Env = process.env): string {
  return env.POKER_CONFIG || join(env.HOME || homedir(), ".config", "poker-bots", "config.json");
}

export function readConfig(path: string): PokerConfig {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as PokerConfig;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new Error(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
}

/** Written owner-only (0600): it holds a token and api keys. */
export function writeConfig(path: string, config: PokerConfig): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** `--server`, else POKER_SERVER, else the config file's server, else http://localhost:3000. */
export function resolveServer(flag: string | undefined, env: Env, config: PokerConfig): string {
  return (flag || env.POKER_SERVER || config.server || DEFAULT_SERVER).replace(/\/+$/, "");
}
