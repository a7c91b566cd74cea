/**
 * The poker-bots CLI: `bun run cli -- <command> [options]`, `--help` on every command.
 * `main(argv, io)` is importable (tests run it in-process); run as a file it uses the real process.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { configPath, readConfig, resolveServer, writeConfig, type PokerConfig, type SpectatorMessage } from "../../packages/sdk/src/index.ts";
import { BUILT_IN_STRATEGIES } from "../modules/bots/model";
import { Spectators } from "../modules/protocol/spectators";
import { Api, ApiError } from "./api";
import { bool, formatFlags, int, parseArgs, str, UsageError, type FlagSpec, type Parsed } from "./args";
import { signed, TableNarrator } from "./format";
import { freshSeed, loadPlayers, playLocalMatch } from "./local-match";

export interface CliIO {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** stderr is a terminal: progress is one updating line. */
  isTTY: boolean;
}

interface Ctx {
  io: CliIO;
  out(line?: string): void;
  err(line: string): void;
  configFile: string;
  config: PokerConfig;
  save(): void;
  api(parsed: Parsed): Api;
  server(parsed: Parsed): string;
}

interface Command {
  name: string;
  summary: string;
  usage: string;
  details?: string;
  flags: FlagSpec;
  run(ctx: Ctx, parsed: Parsed): Promise<number>;
}

const SERVER_FLAG: FlagSpec = { server: { kind: "string", value: "url", help: "the service (env POKER_SERVER, else the config file, else http://localhost:3000)" } };

function commandHelp(command: Command): string {
  return [`${command.summary}\n`, `Usage: bun run cli -- ${command.usage}`, command.details ? `\n${command.details}` : "", `\nOptions:\n${formatFlags(command.flags)}\n`]
    .filter(Boolean)
    .join("\n");
}

function need(parsed: Parsed, name: string): string {
  const value = str(parsed, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function tableIdOf(ctx: Ctx, parsed: Parsed): string {
  const given = parsed.positionals[0];
  if (!given) throw new UsageError("which table? give a table id, or `last` for the last one you created");
  if (given === "last") {
    if (!ctx.config.lastTableId) throw new UsageError("no table created yet from this config: run `bun run cli -- tables create` first");
    return ctx.config.lastTableId;
  }
  return given;
}

function botIdOf(ctx: Ctx, nameOrId: string): string {
  const saved = ctx.config.bots?.[nameOrId];
  if (saved) return saved.botId;
  if (nameOrId.startsWith("bot_")) return nameOrId;
  throw new UsageError(`no bot named "${nameOrId}" in ${ctx.configFile}: use its bot id (bot_…) or create it with \`bun run cli -- bots create ${nameOrId}\``);
}

// ───────────────────────────── account ─────────────────────────────

const authFlags: FlagSpec = {
  email: { kind: "string", value: "email", help: "your email" },
  password: { kind: "string", value: "password", help: "8 to 128 characters" },
  ...SERVER_FLAG,
};

const register: Command = {
  name: "register",
  summary: "Create a developer account; the token is saved in the config file.",
  usage: "register --email <email> --password <password> [--name <name>]",
  flags: { ...authFlags, name: { kind: "string", value: "name", help: "display name" } },
  async run(ctx, parsed) {
    const api = new Api(ctx.server(parsed));
    const body: Record<string, string> = { email: need(parsed, "email"), password: need(parsed, "password") };
    if (str(parsed, "name")) body.name = str(parsed, "name")!;
    const result = await api.request("POST", "/api/auth/register", body);
    Object.assign(ctx.config, { server: api.server, token: result.token, email: body.email });
    ctx.save();
    ctx.out(`registered ${body.email} (${result.developer.developerId}) on ${api.server}`);
    ctx.out(`token saved to ${ctx.configFile}`);
    ctx.out("next: bun run cli -- faucet");
    return 0;
  },
};

const login: Command = {
  name: "login",
  summary: "Log in; the token is saved in the config file.",
  usage: "login --email <email> --password <password>",
  flags: authFlags,
  async run(ctx, parsed) {
    const api = new Api(ctx.server(parsed));
    const email = need(parsed, "email");
    const result = await api.request("POST", "/api/auth/login", { email, password: need(parsed, "password") });
    Object.assign(ctx.config, { server: api.server, token: result.token, email });
    ctx.save();
    ctx.out(`logged in as ${email} on ${api.server} (token valid until ${result.expiresAt}); saved to ${ctx.configFile}`);
    return 0;
  },
};

const whoami: Command = {
  name: "whoami",
  summary: "Show the logged-in developer.",
  usage: "whoami",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const me = await ctx.api(parsed).request("GET", "/api/me", undefined, { auth: true });
    ctx.out(`${me.email} (${me.developerId}) on ${ctx.server(parsed)}`);
    return 0;
  },
};

const faucet: Command = {
  name: "faucet",
  summary: "Claim free credits (once per cooldown, 24 h by default).",
  usage: "faucet",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    try {
      const result = await ctx.api(parsed).request("POST", "/api/me/balance/faucet", undefined, { auth: true });
      ctx.out(`claimed ${result.amount} credits · balance ${result.newBalance} · next claim from ${result.nextClaimAt}`);
      return 0;
    } catch (error) {
      if (error instanceof ApiError && error.code === "FAUCET_COOLDOWN") {
        const body = error.body as { newBalance: number; nextClaimAt: string };
        ctx.err(`the faucet is cooling down: next claim from ${body.nextClaimAt} · balance ${body.newBalance}`);
        return 1;
      }
      throw error;
    }
  },
};

const balance: Command = {
  name: "balance",
  summary: "Show your credits.",
  usage: "balance",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const result = await ctx.api(parsed).request("GET", "/api/me/balance", undefined, { auth: true });
    ctx.out(`balance ${result.balance} credits · faucet ${result.canClaimFaucet ? "claimable now" : `claimable from ${result.nextFaucetClaim}`}`);
    return 0;
  },
};

// ───────────────────────────── bots ─────────────────────────────

const botsCreate: Command = {
  name: "create",
  summary: "Register a bot. Without --strategy it is your remote bot: its api key is printed once and saved in the config file.",
  usage: "bots create <name> [--strategy random|caller|tight|raiser] [--description <text>]",
  flags: {
    strategy: { kind: "string", value: "name", help: `a built-in the service plays itself: ${BUILT_IN_STRATEGIES.join(", ")} (sparring partners)` },
    description: { kind: "string", value: "text", help: "up to 500 characters" },
    ...SERVER_FLAG,
  },
  async run(ctx, parsed) {
    const name = parsed.positionals[0];
    if (!name) throw new UsageError("give the bot a name: bots create <name>");
    const body: Record<string, string> = { name };
    const strategy = str(parsed, "strategy");
    if (strategy) body.strategy = strategy;
    if (str(parsed, "description")) body.description = str(parsed, "description")!;
    const bot = await ctx.api(parsed).request("POST", "/api/bots", body, { auth: true });
    ctx.config.bots = { ...ctx.config.bots, [name]: { botId: bot.botId, strategy: bot.strategy, ...(bot.strategy ? {} : { apiKey: bot.apiKey }) } };
    ctx.save();
    if (bot.strategy) {
      ctx.out(`created ${name} (${bot.botId}) · built-in strategy ${bot.strategy}, played by the service`);
    } else {
      ctx.out(`created ${name} (${bot.botId}) · a remote bot`);
      ctx.out(`api key: ${bot.apiKey} (shown once; saved to ${ctx.configFile})`);
      ctx.out(`run it: bun examples/starter-bot.ts --bot ${name}`);
    }
    return 0;
  },
};

const botsList: Command = {
  name: "list",
  summary: "List your bots (GET /api/me/bots), or every registered bot with --all.",
  usage: "bots list [--all]",
  flags: { all: { kind: "boolean", help: "every bot registered on the service" }, ...SERVER_FLAG },
  async run(ctx, parsed) {
    if (bool(parsed, "all")) {
      const bots = await ctx.api(parsed).request<Array<{ botId: string; name: string; description: string }>>("GET", "/api/bots");
      for (const bot of bots) ctx.out(`${bot.botId}  ${bot.name}${bot.description ? `  — ${bot.description}` : ""}`);
      if (bots.length === 0) ctx.out("no bots registered yet");
      return 0;
    }
    const mine = await ctx
      .api(parsed)
      .request<Array<{ botId: string; name: string; strategy: string | null }>>("GET", "/api/me/bots", undefined, { auth: true });
    if (mine.length === 0) ctx.out("no bots yet: bun run cli -- bots create my-bot");
    for (const bot of mine) {
      const keySaved = Boolean(ctx.config.bots?.[bot.name]?.apiKey);
      ctx.out(`${bot.botId}  ${bot.name}  ${bot.strategy ? `built-in ${bot.strategy}` : keySaved ? "remote (api key saved)" : "remote"}`);
    }
    return 0;
  },
};

const botsRotate: Command = {
  name: "rotate-key",
  summary: "Issue a new api key for your bot (the old one stops working); saved in the config file.",
  usage: "bots rotate-key <name|botId>",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const given = parsed.positionals[0];
    if (!given) throw new UsageError("which bot? bots rotate-key <name|botId>");
    const botId = botIdOf(ctx, given);
    const result = await ctx.api(parsed).request("POST", `/api/bots/${encodeURIComponent(botId)}/rotate-key`, undefined, { auth: true });
    const name = Object.entries(ctx.config.bots ?? {}).find(([, b]) => b.botId === botId)?.[0] ?? given;
    ctx.config.bots = { ...ctx.config.bots, [name]: { ...ctx.config.bots?.[name], botId, apiKey: result.apiKey } };
    ctx.save();
    ctx.out(`new api key for ${name} (${botId}): ${result.apiKey} (saved to ${ctx.configFile})`);
    return 0;
  },
};

// ───────────────────────────── tables ─────────────────────────────

const tablesCreate: Command = {
  name: "create",
  summary: "Create a table; prints its id and remembers it as `last`.",
  usage: "tables create [--max-players 2] [--max-hands 200] [--buy-in 1000] [--small-blind 5] [--big-blind 10]",
  details: "The match starts as soon as every seat is taken (`tables join`).",
  flags: {
    "max-players": { kind: "string", value: "n", help: "seats, 2–10 (default 6)" },
    "max-hands": { kind: "string", value: "n", help: "the match ends after this many hands at the latest (default 200)" },
    "buy-in": { kind: "string", value: "chips", help: "chips each bot buys in with, off its owner's balance (default 1000)" },
    "small-blind": { kind: "string", value: "chips", help: "default 5" },
    "big-blind": { kind: "string", value: "chips", help: "default 10" },
    "action-timeout": { kind: "string", value: "ms", help: "per-action time for remote bots (default 2000)" },
    seed: { kind: "string", value: "text", help: "deal from a seeded PRNG (replayable)" },
    ...SERVER_FLAG,
  },
  async run(ctx, parsed) {
    const body: Record<string, unknown> = {};
    for (const [flag, field] of [["max-players", "maxPlayers"], ["max-hands", "maxHands"], ["buy-in", "buyIn"], ["small-blind", "smallBlind"], ["big-blind", "bigBlind"], ["action-timeout", "actionTimeoutMs"]] as const) {
      const value = int(parsed, flag);
      if (value !== undefined) body[field] = value;
    }
    if (str(parsed, "seed")) body.seed = str(parsed, "seed");
    const table = await ctx.api(parsed).request("POST", "/api/tables", body, { auth: true });
    ctx.config.lastTableId = table.tableId;
    ctx.save();
    const c = table.config;
    ctx.out(`created table ${table.tableId} · ${c.maxPlayers} seats · buy-in ${c.buyIn} · blinds ${c.smallBlind}/${c.bigBlind} · up to ${c.maxHands} hands`);
    ctx.out(`next: bun run cli -- tables join ${table.tableId} --bot <name>   (or: tables join last …)`);
    return 0;
  },
};

const seatFlags: FlagSpec = { bot: { kind: "string", value: "name|botId", help: "your bot (a name from `bots create`, or its bot id)" }, ...SERVER_FLAG };

const tablesJoin: Command = {
  name: "join",
  summary: "Seat your bot at a table (its buy-in comes off your balance).",
  usage: "tables join <tableId|last> --bot <name|botId>",
  details: "The match starts when the table is full.",
  flags: seatFlags,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const botName = need(parsed, "bot");
    const api = ctx.api(parsed);
    const seat = await api.request("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, { botId: botIdOf(ctx, botName) }, { auth: true });
    const table = await api.request("GET", `/api/tables/${encodeURIComponent(tableId)}`);
    const free = table.config.maxPlayers - table.seats.length;
    ctx.out(`seated ${botName} at ${tableId}, seat ${seat.seat}, with ${seat.chips} chips`);
    ctx.out(free > 0 ? `waiting for ${free} more bot${free === 1 ? "" : "s"}` : `the table is full: the match is on (watch it: bun run cli -- watch ${tableId})`);
    return 0;
  },
};

const tablesLeave: Command = {
  name: "leave",
  summary: "Take your bot off a table (during a match: it folds and cashes out after the current hand).",
  usage: "tables leave <tableId|last> --bot <name|botId>",
  flags: seatFlags,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const result = await ctx.api(parsed).request("POST", `/api/tables/${encodeURIComponent(tableId)}/leave`, { botId: botIdOf(ctx, need(parsed, "bot")) }, { auth: true });
    ctx.out(result.status === "left" ? `left ${tableId}; ${result.cashout} credits returned` : `leaving ${tableId}: the bot folds from now on and cashes out after this hand`);
    return 0;
  },
};

const tablesList: Command = {
  name: "list",
  summary: "The lobby: waiting and running tables.",
  usage: "tables list",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const tables = await ctx.api(parsed).request<any[]>("GET", "/api/tables");
    if (tables.length === 0) ctx.out("no open tables: bun run cli -- tables create");
    for (const t of tables) ctx.out(`${t.tableId}  ${t.status}  ${t.seats.length}/${t.config.maxPlayers} seats  blinds ${t.config.smallBlind}/${t.config.bigBlind}  buy-in ${t.config.buyIn}`);
    return 0;
  },
};

const tablesShow: Command = {
  name: "show",
  summary: "One table: status, seats, match.",
  usage: "tables show <tableId|last>",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const t = await ctx.api(parsed).request("GET", `/api/tables/${encodeURIComponent(tableIdOf(ctx, parsed))}`);
    ctx.out(`${t.tableId} · ${t.status} · ${t.seats.length}/${t.config.maxPlayers} seats · ${t.handsPlayed} hands played${t.matchId ? ` · match ${t.matchId}` : ""}`);
    for (const s of t.seats) ctx.out(`  seat ${s.seat}  ${s.botId}  ${s.chips} chips${s.leaving ? " (leaving)" : ""}`);
    return 0;
  },
};

// ───────────────────────────── watch ─────────────────────────────

async function botNames(api: Api, ctx: Ctx, botIds: string[], names: Map<string, string>): Promise<void> {
  for (const [name, bot] of Object.entries(ctx.config.bots ?? {})) names.set(bot.botId, name);
  await Promise.all(
    botIds
      .filter((id) => !names.has(id))
      .map(async (id) => {
        try {
          names.set(id, (await api.request("GET", `/api/bots/${encodeURIComponent(id)}`)).name);
        } catch {}
      }),
  );
}

async function printMatchRecord(ctx: Ctx, api: Api, narrator: TableNarrator, names: Map<string, string>, matchId: string): Promise<void> {
  const match = await api.request("GET", `/api/matches/${encodeURIComponent(matchId)}`);
  await botNames(api, ctx, match.players.map((p: { botId: string }) => p.botId), names);
  for (const line of narrator.lines({ type: "match_ended", tableId: match.tableId ?? "", matchId, handsPlayed: match.handsPlayed, players: match.players })) ctx.out(line);
}

const watch: Command = {
  name: "watch",
  summary: "Stream a live table as readable lines (actions, boards, showdowns); exits when the match ends.",
  usage: "watch <tableId|last>",
  details: "Start it before the table fills to see the whole match. A table whose match is over prints the result.",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const api = ctx.api(parsed);
    const names = new Map<string, string>();
    const narrator = new TableNarrator(names);
    const finishedResult = async (): Promise<number | null> => {
      const table = await api.request("GET", `/api/tables/${encodeURIComponent(tableId)}`);
      if (table.status === "finished" && table.matchId) {
        ctx.out(`table ${tableId}: the match is over`);
        await printMatchRecord(ctx, api, narrator, names, table.matchId);
        return 0;
      }
      if (table.status !== "waiting" && table.status !== "running") {
        ctx.err(`table ${tableId} is ${table.status}: nothing to watch`);
        return 1;
      }
      return null;
    };
    const early = await finishedResult();
    if (early !== null) return early;

    const url = `${api.server.replace(/^http/, "ws")}/api/tables/${encodeURIComponent(tableId)}/watch`;
    let ended = false;
    let notHosted = false;
    await new Promise<void>((resolvePromise) => {
      const socket = new WebSocket(url);
      let chain = Promise.resolve();
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as SpectatorMessage;
        chain = chain.then(async () => {
          if (message.type === "watching") await botNames(api, ctx, message.table.seats.map((s) => s.botId), names);
          if (message.type === "match_started") await botNames(api, ctx, message.seats.map((s) => s.botId), names);
          if (message.type === "error" && message.code === "NOT_FOUND") {
            notHosted = true;
            return;
          }
          for (const line of narrator.lines(message)) ctx.out(line);
          if (message.type === "match_ended") {
            ended = true;
            socket.close(1000);
          }
        });
      };
      socket.onerror = () => {};
      socket.onclose = () => void chain.then(() => resolvePromise());
    });
    if (ended) return 0;
    // The match ended between our look and the socket (or the server went away): report what happened.
    const after = await finishedResult();
    if (after !== null) return after;
    ctx.err(notHosted ? `table ${tableId} is not live on ${api.server}` : "the connection closed before the match ended");
    return 1;
  },
};

// ───────────────────────────── play (local) ─────────────────────────────

const play: Command = {
  name: "play",
  summary: "Play a match locally — no server, no database — between built-ins and/or your bot files.",
  usage: "play --players random,caller,./examples/starter-bot.ts [--hands 100] [--seed 42] [--timeout 2000] [--out match.phhs]",
  details: [
    `Players (2–10, comma-separated): built-ins (${BUILT_IN_STRATEGIES.join(", ")}) or paths of files that`,
    "`export default` a bot (the same object `runBot` connects to the server). The match runs through the",
    "server's own match runner, so the rules are exactly the server's. Same --seed, same cards and",
    "(for deterministic bots) the same match. Writes the hand histories as PHH (default: a file in the",
    "system temp directory, printed at the end) and prints a summary.",
  ].join("\n"),
  flags: {
    players: { kind: "string", value: "list", help: "comma-separated built-ins and/or bot file paths" },
    hands: { kind: "string", value: "n", help: "hands at most (default 100; fewer if one bot takes every chip)" },
    seed: { kind: "string", value: "text", help: "deal from this seed (default: a random seed, printed)" },
    timeout: { kind: "string", value: "ms", help: "time per action for bot files; late answers check or fold (default 2000)" },
    "buy-in": { kind: "string", value: "chips", help: "starting stack (default 1000)" },
    "small-blind": { kind: "string", value: "chips", help: "default 5" },
    "big-blind": { kind: "string", value: "chips", help: "default 10" },
    out: { kind: "string", value: "file", help: "where to write the PHH hand histories (default $TMPDIR/poker-bots/match-<seed>.phhs)" },
    verbose: { kind: "boolean", help: "print every action, board and showdown (like `watch`)" },
    quiet: { kind: "boolean", help: "no progress lines" },
    json: { kind: "boolean", help: "print the summary as JSON" },
  },
  async run(ctx, parsed) {
    const specs = need(parsed, "players").split(",").filter(Boolean);
    if (specs.length < 2 || specs.length > 10) throw new UsageError(`--players needs 2 to 10 players, got ${specs.length}`);
    const hands = int(parsed, "hands", 100, 1, 100_000)!;
    const timeoutMs = int(parsed, "timeout", 2000, 1, 120_000)!;
    const buyIn = int(parsed, "buy-in", 1000, 1)!;
    const smallBlind = int(parsed, "small-blind", 5, 1)!;
    const bigBlind = int(parsed, "big-blind", 10, 1)!;
    if (smallBlind > bigBlind || bigBlind > buyIn) throw new UsageError("blinds must satisfy small ≤ big ≤ buy-in");
    const seed = str(parsed, "seed") ?? freshSeed();
    const out = resolve(ctx.io.cwd, str(parsed, "out") ?? join(tmpdir(), "poker-bots", `match-${seed}.phhs`));
    const players = await loadPlayers(specs, ctx.io.cwd);
    const quiet = bool(parsed, "quiet") || bool(parsed, "json");
    const every = Math.max(1, Math.ceil(hands / 10));
    const started = performance.now();
    let spectators: Spectators | undefined;
    if (bool(parsed, "verbose")) {
      const narrator = new TableNarrator();
      spectators = new Spectators();
      spectators.add("tbl_local", { id: "cli", send: (text) => narrator.lines(JSON.parse(text)).forEach((line) => ctx.out(line)), close: () => {} });
    }
    const result = await playLocalMatch(players, {
      seed,
      hands,
      timeoutMs,
      buyIn,
      smallBlind,
      bigBlind,
      spectators,
      onHand: (n) => {
        if (quiet || hands < 20 || (n % every !== 0 && !ctx.io.isTTY)) return;
        const line = `hand ${n}/${hands} · ${((performance.now() - started) / 1000).toFixed(1)} s`;
        if (ctx.io.isTTY) ctx.io.stderr(`\r${line}  `);
        else ctx.err(line);
      },
    });
    if (ctx.io.isTTY && !quiet) ctx.io.stderr("\r\x1b[K");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, result.phh);
    if (bool(parsed, "json")) {
      const { phh, ...summary } = result;
      ctx.out(JSON.stringify({ ...summary, phhFile: out }, null, 2));
      return 0;
    }
    ctx.out(`local match · seed ${seed} · ${players.length} players · ${result.handsPlayed} hands in ${(result.elapsedMs / 1000).toFixed(2)} s`);
    const width = Math.max(6, ...result.players.map((p) => p.name.length));
    ctx.out(`  seat  ${"player".padEnd(width)}  ${"chips".padStart(7)}  ${"profit".padStart(7)}  hands won  timeouts`);
    for (const p of result.players) {
      ctx.out(`  ${String(p.seat).padEnd(4)}  ${p.name.padEnd(width)}  ${String(p.finalChips).padStart(7)}  ${signed(p.profit).padStart(7)}  ${String(p.handsWon).padStart(9)}  ${String(p.timeouts).padStart(8)}`);
    }
    ctx.out(`winner: ${result.winners.join(", ")}`);
    ctx.out(`hand histories (PHH): ${out}`);
    ctx.out(`replay: bun run cli -- play --players ${specs.join(",")} --hands ${hands} --seed ${seed}`);
    return 0;
  },
};

// ───────────────────────────── dispatch ─────────────────────────────

const GROUPS: Record<string, { summary: string; commands: Command[] }> = {
  bots: { summary: "create, list and rotate the keys of your bots", commands: [botsCreate, botsList, botsRotate] },
  tables: { summary: "create tables, seat and unseat bots", commands: [tablesCreate, tablesJoin, tablesLeave, tablesList, tablesShow] },
};
const TOP: Command[] = [register, login, whoami, faucet, balance, watch, play];

function mainHelp(): string {
  const rows: Array<[string, string]> = [
    ...TOP.slice(0, 5).map((c) => [c.name, c.summary] as [string, string]),
    ...Object.entries(GROUPS).flatMap(([group, g]) => g.commands.map((c) => [`${group} ${c.name}`, c.summary] as [string, string])),
    ...TOP.slice(5).map((c) => [c.name, c.summary] as [string, string]),
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  return `poker-bots CLI

Usage: bun run cli -- <command> [options]      (\`<command> --help\` for its options)

Commands:
${rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`).join("\n")}

Environment: POKER_SERVER (service URL, default http://localhost:3000), POKER_CONFIG (config file,
default ~/.config/poker-bots/config.json: token, server, your bots' api keys, the last table).
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
  const out = (line = "") => io.stdout(line + "\n");
  const err = (line: string) => io.stderr(line + "\n");
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
      err(`unknown command "${first} ${sub}"\n`);
      err(groupHelp(first));
      return 2;
    }
    commandArgs = rest.slice(1);
  } else {
    command = TOP.find((c) => c.name === first);
    if (!command) {
      err(`unknown command "${first}": see bun run cli -- --help`);
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
    const ctx: Ctx = {
      io,
      out,
      err,
      configFile,
      config,
      save: () => writeConfig(configFile, config),
      server: (p) => resolveServer(str(p, "server"), io.env, config),
      api: (p) => new Api(resolveServer(str(p, "server"), io.env, config), config.token),
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
