/** What every CLI command gets: the io, the config file, an API client; and small shared helpers. */
import type { PokerConfig, ServerProfile } from "@poker-bots/sdk";
import type { Api } from "./api";
import { formatFlags, str, UsageError, type FlagSpec, type Parsed } from "./args";

export interface CliIO {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** stderr is a terminal: progress is one updating line. */
  isTTY: boolean;
}

export interface Ctx {
  io: CliIO;
  out(line?: string): void;
  err(line: string): void;
  configFile: string;
  /** The whole file: `server` (the default) and an entry per server. */
  config: PokerConfig;
  /** This command's server's entry: its token, bots and last table (empty if never logged in there). */
  profile: ServerProfile;
  /** Writes the file, with `profile` as the entry of this command's server. */
  save(): void;
  api(parsed: Parsed): Api;
  server(parsed: Parsed): string;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  details?: string;
  flags: FlagSpec;
  run(ctx: Ctx, parsed: Parsed): Promise<number>;
}

export const SERVER_FLAG: FlagSpec = { server: { kind: "string", value: "url", help: "the service (env POKER_SERVER, else the config file, else http://localhost:3000)" } };

export function commandHelp(command: Command): string {
  return [`${command.summary}\n`, `Usage: bun run cli -- ${command.usage}`, command.details ? `\n${command.details}` : "", `\nOptions:\n${formatFlags(command.flags)}\n`]
    .filter(Boolean)
    .join("\n");
}

export function need(parsed: Parsed, name: string): string {
  const value = str(parsed, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

export function tableIdOf(ctx: Ctx, parsed: Parsed): string {
  const given = parsed.positionals[0];
  if (!given) throw new UsageError("which table? give a table id, or `last` for the last one you created");
  if (given === "last") {
    if (!ctx.profile.lastTableId) throw new UsageError("no table created yet on this server from this config: run `bun run cli -- tables create` first");
    return ctx.profile.lastTableId;
  }
  return given;
}

export function botIdOf(ctx: Ctx, nameOrId: string): string {
  const saved = ctx.profile.bots?.[nameOrId];
  if (saved) return saved.botId;
  if (nameOrId.startsWith("bot_")) return nameOrId;
  throw new UsageError(`no bot named "${nameOrId}" in ${ctx.configFile}: use its bot id (bot_…) or create it with \`bun run cli -- bots create ${nameOrId}\``);
}
