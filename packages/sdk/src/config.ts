import { mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** What the CLI keeps for one server: a token and bot ids mean nothing to any other server. */
export interface ServerProfile {
  token?: string;
  email?: string;
  /** Bots created through the CLI, by name: remote bots keep their api key here. */
  bots?: Record<string, { botId: string; apiKey?: string; strategy?: string | null }>;
  /** The last table created, for `last` in table commands. */
  lastTableId?: string;
}

/** The file the CLI writes (`bun run cli -- login`, `bots create`) and bots may read their key from. */
export interface PokerConfig {
  /** The server last logged in to: the default when neither --server nor POKER_SERVER says one. */
  server?: string;
  /** Credentials and bots per server URL (normalized by `normalizeServer`). */
  servers?: Record<string, ServerProfile>;
}

export type Env = Record<string, string | undefined>;

export const DEFAULT_SERVER = "http://localhost:3000";

/** `POKER_CONFIG`, else ~/.config/poker-bots/config.json. */
export function configPath(env: Env = process.env): string {
  return env.POKER_CONFIG || join(env.HOME || homedir(), ".config", "poker-bots", "config.json");
}

/** One spelling per server, so `http://HOST:3000/` and `http://host:3000` share their credentials. */
export function normalizeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return (parsed.origin + parsed.pathname).replace(/\/+$/, "");
  } catch {
    return url.replace(/\/+$/, "");
  }
}

const PROFILE_KEYS = ["token", "email", "bots", "lastTableId"] as const;

/**
 * Files written before credentials were kept per server hold one token, its bots and last table at
 * the top level: they become the entry of the server they name (the default server if none).
 */
function migrate(raw: Record<string, unknown>): PokerConfig {
  const config: PokerConfig = { ...(typeof raw.server === "string" ? { server: normalizeServer(raw.server) } : {}), servers: { ...(raw.servers as PokerConfig["servers"]) } };
  const legacy: ServerProfile = {};
  for (const key of PROFILE_KEYS) if (raw[key] !== undefined) (legacy as Record<string, unknown>)[key] = raw[key];
  if (Object.keys(legacy).length > 0) {
    const server = config.server ?? DEFAULT_SERVER;
    config.servers![server] = { ...legacy, ...config.servers![server] };
  }
  return config;
}

export function readConfig(path: string): PokerConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new Error(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Error(`cannot read the config file ${path}: not a JSON object`);
  return migrate(raw as Record<string, unknown>);
}

/** Written owner-only (0600): it holds tokens and api keys. */
export function writeConfig(path: string, config: PokerConfig): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** `--server`, else POKER_SERVER, else the config file's server, else http://localhost:3000. */
export function resolveServer(flag: string | undefined, env: Env, config: PokerConfig): string {
  return normalizeServer(flag || env.POKER_SERVER || config.server || DEFAULT_SERVER);
}

/** The saved entry of `server`: empty (and not yet in the file) for a server never logged in to. */
export function profileOf(config: PokerConfig, server: string): ServerProfile {
  return config.servers?.[normalizeServer(server)] ?? {};
}
