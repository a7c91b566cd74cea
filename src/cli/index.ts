/**
 * The poker-bots CLI: `bun run cli -- <command> [options]`, `--help` on every command.
 * `main(argv, io)` is importable (tests run it in-process); run as a file it uses the real process.
 */
import { configPath, profileOf, readConfig, resolveServer, writeConfig } from "@poker-bots/sdk";
import { Api, ApiError } from "./api";
import { parseArgs, str, UsageError } from "./args";
import { commandHelp, type CliIO, type Command, type Ctx } from "./command";
import { balance, faucet, login, register, whoami } from "./commands/account";
import { botsCreate, botsList, botsRetire, botsRotate } from "./commands/bots";
import { botsLogs, botsUnhost, botsUpload } from "./commands/hosted";
import { play } from "./commands/play";
import { tablesCreate, tablesDelete, tablesJoin, tablesLeave, tablesList, tablesShow } from "./commands/tables";
import { watch } from "./commands/watch";
import { verify } from "./commands/verify";
import { didYouMean } from "./suggest";
import { terminalSafe } from "./format";
import { ratings } from "./commands/ratings";
import { evaluate } from "./commands/eval";
import { hands, leaderboard, matches, stats, transactions } from "./commands/records";
import { ladderEnter, ladderLeave, ladderStandings, ladderStatus } from "./commands/ladder";
import { challenge, tournamentsCreate, tournamentsEnter, tournamentsShow, tournamentsStart, tournamentsWithdraw } from "./commands/competitions";

export type { CliIO } from "./command";

// ───────────────────────────── dispatch ─────────────────────────────

const GROUPS: Record<string, { summary: string; commands: Command[] }> = {
  bots: { summary: "create, list, rotate the keys of and retire your bots; upload a file for the service to play (hosted), read its logs, turn hosting off", commands: [botsCreate, botsList, botsRotate, botsRetire, botsUpload, botsUnhost, botsLogs] },
  tables: { summary: "create and delete tables, seat and unseat bots", commands: [tablesCreate, tablesJoin, tablesLeave, tablesList, tablesShow, tablesDelete] },
  tournaments: { summary: "sit-and-go freezeouts and round robins: create, enter, withdraw, start, show", commands: [tournamentsCreate, tournamentsEnter, tournamentsWithdraw, tournamentsStart, tournamentsShow] },
  ladder: { summary: "the rated ladder: enter your bot and leave it running, see why an entry is paused, the standings", commands: [ladderEnter, ladderLeave, ladderStatus, ladderStandings] },
};
const TOP: Command[] = [register, login, whoami, faucet, balance, transactions, watch, matches, hands, stats, leaderboard, ratings, verify, challenge, play, evaluate];

function mainHelp(): string {
  const rows: Array<[string, string]> = [
    ...TOP.slice(0, 6).map((c) => [c.name, c.summary] as [string, string]),
    ...Object.entries(GROUPS).flatMap(([group, g]) => g.commands.map((c) => [`${group} ${c.name}`, c.summary] as [string, string])),
    ...TOP.slice(6).map((c) => [c.name, c.summary] as [string, string]),
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  return `poker-bots CLI

Usage: bun run cli -- <command> [options]      (\`<command> --help\` for its options)

Commands:
${rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`).join("\n")}

Environment: POKER_SERVER (service URL, default http://localhost:3000), POKER_CONFIG (config file,
default ~/.config/poker-bots/config.json: per server URL your token, your bots' api keys and the last
table; a server you have not logged in to gets no token: public reads work, the rest say to log in).
`;
}

function groupHelp(name: string): string {
  const group = GROUPS[name];
  const width = Math.max(...group.commands.map((c) => c.name.length));
  return `${name}: ${group.summary}\n\nUsage: bun run cli -- ${name} <subcommand> [options]\n\nSubcommands:\n${group.commands
    .map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
    .join("\n")}\n`;
}

function defaultIO(): CliIO {
  return {
    env: process.env,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    isTTY: Boolean(process.stderr.isTTY),
  };
}

export async function main(argv: string[], partial: Partial<CliIO> = {}): Promise<number> {
  const io: CliIO = { ...defaultIO(), ...partial };
  if (partial.isTTY === undefined && partial.stderr) io.isTTY = false;
  const out = (line = "") => io.stdout(terminalSafe(line) + "\n");
  const err = (line: string) => io.stderr(terminalSafe(line) + "\n");
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  const [first, ...rest] = args;
  if (!first || first === "--help" || first === "-h" || first === "help") {
    out(mainHelp());
    return first ? 0 : 1;
  }
  let command: Command | undefined;
  let commandArgs = rest;
  if (GROUPS[first]) {
    const sub = rest[0];
    if (!sub || sub === "--help" || sub === "-h") {
      out(groupHelp(first));
      return sub ? 0 : 1;
    }
    command = GROUPS[first].commands.find((c) => c.name === sub);
    if (!command) {
      err(`unknown command "${first} ${sub}"${didYouMean(sub, GROUPS[first].commands.map((c) => c.name))}\n`);
      err(groupHelp(first));
      return 2;
    }
    commandArgs = rest.slice(1);
  } else {
    command = TOP.find((c) => c.name === first);
    if (!command) {
      err(`unknown command "${first}"${didYouMean(first, [...TOP.map((c) => c.name), ...Object.keys(GROUPS)])}: see bun run cli -- --help`);
      return 2;
    }
  }
  const configFile = configPath(io.env);
  try {
    const parsed = parseArgs(commandArgs, command.flags);
    if (parsed.flags.help) {
      out(commandHelp(command));
      return 0;
    }
    const config = readConfig(configFile);
    // Credentials are per server: a token is only ever sent to the server that issued it.
    const server = resolveServer(str(parsed, "server"), io.env, config);
    const profile = profileOf(config, server);
    const ctx: Ctx = {
      io,
      out,
      err,
      configFile,
      config,
      profile,
      save: () => writeConfig(configFile, { ...config, servers: { ...config.servers, [server]: profile } }),
      server: () => server,
      api: () => new Api(server, profile.token),
    };
    return await command.run(ctx, parsed);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\n\nUsage: bun run cli -- ${command.usage}   (--help for the options)`);
      return 2;
    }
    if (error instanceof ApiError) {
      err(`error: ${error.message}${error.code && !error.code.startsWith("HTTP_") ? ` (${error.code})` : ""}`);
      return 1;
    }
    err(`error: ${(error as Error).message ?? error}`);
    return 1;
  }
}

if (import.meta.main) {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0); // `… | head`
  });
  process.exitCode = await main(process.argv.slice(2));
}
