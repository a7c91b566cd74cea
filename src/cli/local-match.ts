/**
 * `cli play`: a whole match in this process — no server, no database — through the server's own
 * match runner (playMatch) with an in-memory store, so local play follows exactly the server's
 * rules. Local bots get the same protocol messages a remote bot gets, through the SDK's BotSession.
 */
import { basename, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BotSession, memoryLogger, type BotDefinition, type Logger } from "@poker-bots/sdk";
import { systemClock } from "../lib/clock";
import { BUILT_IN_STRATEGIES, type BuiltInStrategy } from "../modules/bots/model";
import type { Spectators } from "../modules/protocol/spectators";
import { playMatch, type MatchStore } from "../modules/match-host/match-runner";
import type { HandRecord, MatchOutcome } from "../modules/match-host/persistence";
import { newSeatRuntime, TableRuntime, type TwinLink } from "../modules/tables/runtime";
import { NO_TIME_BANK } from "../modules/seats/rules";
import { RemoteSeat } from "../modules/seats/remote";
import { seatChannels } from "../modules/seats/channels";
import type { MatchPlayers } from "../modules/hosted/players";
import { BotGateway } from "../modules/protocol/gateway";
import { RateLimiter } from "../lib/rate-limit";
import { loadConfig } from "../config";
import { phhOfHands, type StoredHand } from "../modules/match-host/hand-history";
import { cryptoRng } from "@poker-bots/core/rng";
import { builtInRng, dealSource } from "../modules/match-host/deals";
import type { HostedLogLine } from "../modules/hosted/sandbox";
import { bundleHostedFile, HOSTED_PREFIX, openLocalHostedPlayers } from "./hosted";

/** A player given as a command line: `exec:python3 my_bot.py`. */
export const EXEC_PREFIX = "exec:";

export interface LocalPlayer {
  /** Unique name at the table (the botId in messages and in the PHH `players`). */
  name: string;
  source: string;
  strategy: BuiltInStrategy | null;
  bot: BotDefinition | null;
  /** `exec:<command>`: a program in any language that connects to the service (see local-service.ts). */
  command?: string;
  /** `hosted:<file>`: the file bundled as the service bundles an upload, played in a sandbox seat (see hosted.ts). */
  hostedCode?: string;
}

export function isBuiltIn(spec: string): spec is BuiltInStrategy {
  return (BUILT_IN_STRATEGIES as readonly string[]).includes(spec);
}

/** Names made unique at one table: the second "tight" is "tight#2". */
export function uniqueNames(): (name: string) => string {
  const taken = new Map<string, number>();
  return (name) => {
    const n = (taken.get(name) ?? 0) + 1;
    taken.set(name, n);
    return n === 1 ? name : `${name}#${n}`;
  };
}

/**
 * One name per player spec, for `play` and `eval` alike: a built-in's name, else the base name of
 * the bot's file ("./examples/starter-bot.ts" → starter-bot; "exec:python3 bots/my_bot.py" → my_bot).
 */
export function playerLabel(spec: string): string {
  if (isBuiltIn(spec)) return spec;
  if (spec.startsWith(HOSTED_PREFIX)) return playerLabel(spec.slice(HOSTED_PREFIX.length).trim());
  if (spec.startsWith(EXEC_PREFIX)) {
    const words = spec.slice(EXEC_PREFIX.length).trim().split(/\s+/);
    // The script the program runs (the last word that is a plain path), else the program itself.
    const file = [...words].reverse().find((w) => /^[\w./\\-]+$/.test(w) && /[./\\]/.test(w) && !w.startsWith("-")) ?? words[0];
    return basename(file, extname(file)) || "exec";
  }
  return basename(spec, extname(spec));
}

/** "random,caller,./examples/starter-bot.ts,exec:python3 bot.py" → players; files must export a default bot ({ decide }). */
export async function loadPlayers(specs: string[], cwd: string): Promise<LocalPlayer[]> {
  const players: LocalPlayer[] = [];
  const unique = uniqueNames();
  for (const raw of specs) {
    const spec = raw.trim();
    if (isBuiltIn(spec)) {
      players.push({ name: unique(spec), source: spec, strategy: spec, bot: null });
      continue;
    }
    if (spec.startsWith(EXEC_PREFIX)) {
      const command = spec.slice(EXEC_PREFIX.length).trim();
      if (!command) throw new Error(`"${spec}" names no command: write exec:<command line>, e.g. "exec:python3 examples/python/starter_bot.py"`);
      players.push({ name: unique(playerLabel(spec)), source: spec, strategy: null, bot: null, command });
      continue;
    }
    if (spec.startsWith(HOSTED_PREFIX)) {
      players.push({ name: unique(playerLabel(spec)), source: spec, strategy: null, bot: null, hostedCode: await bundleHostedFile(spec, cwd) });
      continue;
    }
    if (!/[./\\]/.test(spec)) throw new Error(`unknown player "${spec}": use a built-in (${BUILT_IN_STRATEGIES.join(", ")}), a bot file path like ./my-bot.ts, or a command like "exec:python3 my_bot.py"`);
    const path = resolve(cwd, spec);
    let module: Record<string, unknown>;
    try {
      await resolveSdkAnywhere();
      module = await import(pathToFileURL(path).href);
    } catch (error) {
      throw new Error(`cannot load bot file ${spec}: ${(error as Error).message}`);
    }
    const bot = (module.default ?? module.bot) as BotDefinition | undefined;
    if (!bot || typeof bot.decide !== "function") {
      throw new Error(`${spec} must export default a bot: \`export default defineBot({ decide(state) { … } })\` (a bot in another language: "exec:<command>")`);
    }
    players.push({ name: unique(playerLabel(spec)), source: spec, strategy: null, bot });
  }
  return players;
}

/** What a bot file may import of the SDK: its entry and the subpaths its package exports. */
const SDK_SPECIFIERS = ["@poker-bots/sdk", ...["messages", "narrator", "actions", "state", "helpers", "logger", "readable-logger", "session"].map((sub) => `@poker-bots/sdk/${sub}`)];
let sdkResolved: Promise<void> | null = null;

/**
 * A bot file imports `@poker-bots/sdk` (as examples/ do), which Bun resolves from the file's own
 * folder: a file kept outside this repository would not find it ("Cannot find package"). This
 * process's own SDK answers those imports wherever the file lives (Bun's virtual modules: its
 * runtime plugins resolve no bare name), as `hosted:` and an upload do by bundling the file.
 */
function resolveSdkAnywhere(): Promise<void> {
  sdkResolved ??= (async () => {
    const modules = await Promise.all(SDK_SPECIFIERS.map(async (specifier) => [specifier, (await import(specifier)) as Record<string, unknown>] as const));
    Bun.plugin({
      name: "the SDK for bot files anywhere",
      setup(build) {
        for (const [specifier, exports] of modules) build.module(specifier, () => ({ exports, loader: "object" }));
      },
    });
  })();
  return sdkResolved;
}

export interface LocalMatchOptions {
  seed: string;
  hands: number;
  timeoutMs: number;
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
  /** Bots' structured logs (default: kept in memory, counted). */
  logger?: Logger;
  onHand?: (handNumber: number, table: TableRuntime) => void;
  /** Gets every public message of the match, as a server's spectators do (`play --verbose`). */
  spectators?: Spectators;
  /**
   * Heads-up: a duplicate match as the service plays one (docs/FAIRNESS.md): two matches, the second
   * with the seats swapped and the first's decks; each copy plays its own fresh sessions and hosted
   * contexts, and its own stream of built-in draws. The result adds both copies up.
   */
  duplicate?: boolean;
}

export interface LocalPlayerResult {
  name: string;
  source: string;
  seat: number;
  finalChips: number;
  profit: number;
  handsWon: number;
  /** Requests left unanswered by their deadline (late, silent, or a hosted: bot's run past its budget): checked or folded for, as the server would; null: not counted (a match on the service). */
  timeouts: number | null;
  /** A hosted: player's log (its console, its failures and the sandbox's notes), as the service keeps it for GET /api/bots/:botId/logs. */
  hostedLogs?: HostedLogLine[];
}

export interface LocalMatchResult {
  seed: string;
  handsPlayed: number;
  players: LocalPlayerResult[];
  winners: string[];
  phh: string;
  /** Every hand's history, as the server stores it (the PHH above derives from these). */
  histories: StoredHand[];
  elapsedMs: number;
}

const DEVELOPER = "dev_local";
/** The service's defaults (the bot message budget): local play keeps the server's rules. */
const LOCAL_RULES = loadConfig({});

export async function playLocalMatch(players: LocalPlayer[], options: LocalMatchOptions): Promise<LocalMatchResult> {
  if (players.length < 2 || players.length > 10) throw new Error(`a match needs 2 to 10 players, got ${players.length}`);
  if (players.some((p) => p.command)) throw new Error("a bot given as a command plays on the service: use playOnService");
  if (!options.duplicate) return playCopy(players, options, null, Date.now());
  if (players.length !== 2) throw new Error(`a duplicate match is heads-up, got ${players.length} players`);
  // Both copies' hosted contexts read one match clock origin, as on the service (match-host/twins.ts).
  const origin = Date.now();
  const first = await playCopy(players, options, { copy: 1, tableId: "tbl_local_copy2", matchId: null }, origin);
  const second = await playCopy([players[1], players[0]], options, { copy: 2, tableId: "tbl_local_copy1", matchId: null }, origin);
  return bothCopies(players, options.seed, first, second);
}

/** One match: a whole one, or one copy of a duplicate pair (`twin`: the other copy; its seats are `players` in seat order). */
async function playCopy(players: LocalPlayer[], options: LocalMatchOptions, twin: TwinLink | null, origin: number): Promise<LocalMatchResult> {
  const hosted: { players: MatchPlayers | null } = { players: null };
  try {
    return await playWithSeats(players, options, hosted, twin, origin);
  } finally {
    await hosted.players?.close();
  }
}

/** A duplicate match's result: each player's results over both copies (in `players` order, seat: its copy-1 seat). */
function bothCopies(players: LocalPlayer[], seed: string, first: LocalMatchResult, second: LocalMatchResult): LocalMatchResult {
  const results = players.map((player, seat): LocalPlayerResult => {
    const [a, b] = [first, second].map((copy) => copy.players.find((p) => p.name === player.name)!);
    const timeouts = a.timeouts === null || b.timeouts === null ? null : a.timeouts + b.timeouts;
    const logs = a.hostedLogs || b.hostedLogs ? { hostedLogs: [...(a.hostedLogs ?? []), ...(b.hostedLogs ?? [])] } : {};
    return { name: player.name, source: player.source, seat, finalChips: a.finalChips + b.finalChips, profit: a.profit + b.profit, handsWon: a.handsWon + b.handsWon, timeouts, ...logs };
  });
  const most = Math.max(...results.map((r) => r.finalChips));
  // One PHH text: each copy's hand tables named by copy and number ([copy1-1], … [copy2-1], …).
  const named = (copy: number, text: string) => text.replace(/^\[(\d+)\]$/gm, `[copy${copy}-$1]`);
  return {
    seed,
    handsPlayed: first.handsPlayed + second.handsPlayed,
    players: results,
    winners: results.filter((r) => r.finalChips === most).map((r) => r.name),
    phh: `${named(1, first.phh)}\n${named(2, second.phh)}`,
    histories: [...first.histories, ...second.histories],
    elapsedMs: first.elapsedMs + second.elapsedMs,
  };
}

async function playWithSeats(players: LocalPlayer[], options: LocalMatchOptions, hosted: { players: MatchPlayers | null }, twin: TwinLink | null, origin: number): Promise<LocalMatchResult> {
  const started = performance.now();
  const tableId = twin ? `tbl_local_copy${twin.copy}` : "tbl_local";
  const table = new TableRuntime(
    tableId,
    DEVELOPER,
    new Date(),
    {
      buyIn: options.buyIn,
      smallBlind: options.smallBlind,
      bigBlind: options.bigBlind,
      maxPlayers: players.length,
      maxHands: options.hands,
      actionTimeoutMs: options.timeoutMs,
      seed: options.seed,
      ...(twin ? { duplicate: true } : {}),
    },
    null,
    twin,
  );
  players.forEach((player, position) => {
    const seat = newSeatRuntime({
      seatId: position,
      position,
      botId: player.name,
      developerId: DEVELOPER,
      strategy: player.strategy,
      buyIn: options.buyIn,
      chips: options.buyIn,
      timeBankMs: 0,
    });
    table.seat(seat);
  });

  const logger = options.logger ?? memoryLogger();
  // The service's own seats: bot files talk to the server's gateway, each through a socket of this
  // process (remote seats); hosted: files run in the sandbox as the service's hosted seats do. Both
  // are asked by seats/decide.ts: an illegal answer, a late one and a missing one meet the server's rules.
  const gateway = new BotGateway(systemClock, new RateLimiter(LOCAL_RULES.botMessagesPerSecond, 1_000, systemClock));
  const timeouts = new Map<string, number>();
  for (const player of players) {
    if (!player.bot) continue;
    const socket = { id: `local_${player.name}`, send: (data: string) => void session.handle(JSON.parse(data)), close: () => {} };
    const session = new BotSession(player.bot, (message) => gateway.receive(socket, message), logger, player.name);
    gateway.connect(player.name, socket, { type: "welcome", botId: player.name, name: player.name, protocolVersion: 1, serverTime: new Date().toISOString() });
  }
  // A hosted: player is a fresh sandbox context for this match, as on the service.
  const hostedPlayers = players.filter((player) => player.hostedCode !== undefined).map((player) => ({ botId: player.name, code: player.hostedCode! }));
  const opened = hostedPlayers.length > 0 ? await openLocalHostedPlayers(hostedPlayers, { tableId, matchId: () => table.matchId }, origin) : null;
  hosted.players = opened?.players ?? null;
  const remote = {
    seat: (botId: string) => new RemoteSeat(botId, gateway),
    rules: { clock: systemClock, timeBank: NO_TIME_BANK, onSilence: (botId: string) => void timeouts.set(botId, (timeouts.get(botId) ?? 0) + 1) },
  };
  const channels = seatChannels(hosted.players, { ask: remote, send: (botId, message) => gateway.send(botId, message) }, systemClock, NO_TIME_BANK);

  const hands: HandRecord[] = [];
  let outcome: MatchOutcome | null = null;
  const store: MatchStore = {
    async started() {},
    record(_tableId, _matchId, hand) {
      if (hand) hands.push(hand);
    },
    failureOf: () => undefined,
    async backpressure() {},
    // One process, nothing to survive: every number may be dealt at once.
    async reserveHands(tbl, through) {
      tbl.reservedThrough(through);
    },
    async finish(result) {
      outcome = result;
    },
  };

  await playMatch(table, {
    clock: systemClock,
    rng: builtInRng(table),
    deckFor: dealSource(table),
    store,
    ...channels,
    spectators: options.spectators,
    onHandFinished: (tbl) => options.onHand?.(tbl.handNumber, tbl),
  });

  const finished = outcome as MatchOutcome | null;
  if (!finished) throw new Error("the match ended without a result");
  const results: LocalPlayerResult[] = players.map((player, seat) => {
    const record = finished.players.find((p) => p.botId === player.name)!;
    return {
      name: player.name,
      source: player.source,
      seat,
      finalChips: record.finalChips,
      profit: record.finalChips - record.buyIn,
      handsWon: record.handsWon,
      timeouts: timeouts.get(player.name) ?? 0,
      ...(opened?.seats.has(player.name) ? { hostedLogs: opened.seats.get(player.name)!.logs() } : {}),
    };
  });
  const most = Math.max(...results.map((r) => r.finalChips));
  return {
    seed: options.seed,
    handsPlayed: finished.handsPlayed,
    players: results,
    winners: results.filter((r) => r.finalChips === most).map((r) => r.name),
    phh: phhText(`local-${options.seed}`, hands),
    histories: hands.map((record) => record.history as StoredHand),
    elapsedMs: performance.now() - started,
  };
}

/** A random seed, printed so that any local match can be replayed. */
export function freshSeed(): string {
  return String(cryptoRng().nextUint32());
}

/** The same PHH (a .phhs hand-history set) the server answers for a match. */
export function phhText(matchId: string, hands: HandRecord[]): string {
  return phhOfHands({ matchId }, hands.map((record) => record.history as StoredHand));
}
