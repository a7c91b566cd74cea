/**
 * `play`/`eval` with a bot given as a command (`exec:python3 my_bot.py`): a bot in any language
 * speaks the real protocol over a real socket, so the CLI starts the real service in this process,
 * on embedded storage (PGlite in a temporary directory) and a loopback port, creates the bots, and
 * hands each command its URL and key in POKER_SERVER / POKER_API_KEY (docs/PROTOCOL.md). Built-ins
 * sit as the service's own built-in bots; bot files connect in-process through the SDK.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, memoryLogger, type SpectatorMessage } from "@poker-bots/sdk";
import { loadConfig } from "../config";
import { startServer, type RunningServer } from "../server";
import { Api } from "./api";
import { recordedMatch } from "../modules/ratings/store";
import type { LocalMatchOptions, LocalMatchResult, LocalPlayer, LocalPlayerResult } from "./local-match";

/** A bot of the service: its id, and how to stop whatever plays it (a process, an SDK client). */
interface ServiceBot {
  botId: string;
  player: LocalPlayer;
  stop(): Promise<void>;
  /** A command's exit code once it has exited (null: running, or not a command). */
  exitCode(): number | null;
}

export type ServiceMatchOptions = Omit<LocalMatchOptions, "spectators" | "logger" | "onHand"> & {
  onHand?: (handNumber: number) => void;
  /** Every public message of the match, as a spectator gets it. */
  onMessage?: (message: SpectatorMessage) => void;
};

const CONNECT_TIMEOUT_MS = 20_000;

export class LocalService {
  /** botId → player name, for narrating and for results. */
  private readonly bots = new Map<string, ServiceBot>();
  private spectatorCounter = 0;

  private constructor(
    private readonly server: RunningServer,
    private readonly dir: string,
    private readonly api: Api,
    private readonly cwd: string,
    private readonly log: (line: string) => void,
    /** botId → player name, filled as bots are created (for narrating and results). */
    readonly names: Map<string, string>,
  ) {}

  /** `log` gets the commands' own output (stdout and stderr), each line prefixed with the bot's name. */
  static async start(cwd: string, log: (line: string) => void, names = new Map<string, string>()): Promise<LocalService> {
    const dir = mkdtempSync(join(tmpdir(), "poker-bots-local-"));
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      PGLITE_DIR: join(dir, "db"),
      // One throwaway account that never leaves this machine: cheap hashing, credits for any number of buy-ins.
      PASSWORD_MEMORY_COST_KIB: "256",
      PASSWORD_TIME_COST: "1",
      FAUCET_AMOUNT: "1000000000",
      // No time bank: --timeout means what it means for local play (a late answer checks or folds).
      TIME_BANK_MS: "0",
      TIME_BANK_CAP_MS: "0",
      TIME_BANK_REFILL_MS: "0",
    });
    // The embedded database announces its first start on stdout, which is this command's output (--json).
    const consoleLog = console.log;
    console.log = () => {};
    let server: RunningServer;
    try {
      server = await startServer(config);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    } finally {
      console.log = consoleLog;
    }
    try {
      const { token } = await new Api(server.url).request("POST", "/api/auth/register", { email: `local-${crypto.randomUUID().slice(0, 8)}@poker-bots.invalid`, password: crypto.randomUUID() });
      const api = new Api(server.url, token);
      await api.request("POST", "/api/me/balance/faucet", undefined, { auth: true });
      return new LocalService(server, dir, api, cwd, log, names);
    } catch (error) {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get url(): string {
    return this.server.url;
  }

  /** The bot for `key` (created, started and connected on first use). */
  async bot(key: string, player: LocalPlayer): Promise<ServiceBot> {
    const known = this.bots.get(key);
    if (known) return known;
    const created = await this.api.request("POST", "/api/bots", player.strategy ? { name: player.name, strategy: player.strategy } : { name: player.name }, { auth: true });
    const botId: string = created.botId;
    this.names.set(botId, player.name);
    let bot: ServiceBot = { botId, player, stop: async () => {}, exitCode: () => null };
    if (player.command) bot = { ...bot, ...this.spawn(player, created.apiKey) };
    else if (player.bot) {
      const client = connect(player.bot, { apiKey: created.apiKey, server: this.url, logger: memoryLogger() });
      bot.stop = async () => client.close();
    }
    this.bots.set(key, bot);
    if (!player.strategy) await this.connected(bot);
    return bot;
  }

  private spawn(player: LocalPlayer, apiKey: string): Pick<ServiceBot, "stop" | "exitCode"> {
    // Its own process group: a shell's children (the interpreter under `sh -c`) are stopped with it.
    const child = Bun.spawn(["/bin/sh", "-c", player.command!], {
      detached: true,
      cwd: this.cwd,
      env: { ...process.env, POKER_SERVER: this.url, POKER_API_KEY: apiKey, POKER_BOT_NAME: player.name },
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const relay = async (stream: ReadableStream<Uint8Array>) => {
      let rest = "";
      const decoder = new TextDecoder();
      for await (const bytes of stream) {
        const lines = (rest + decoder.decode(bytes, { stream: true })).split("\n");
        rest = lines.pop()!;
        for (const line of lines) this.log(`[${player.name}] ${line}`);
      }
      if (rest) this.log(`[${player.name}] ${rest}`);
    };
    const output = Promise.all([relay(child.stdout), relay(child.stderr)]);
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid, signal);
      } catch {} // already gone
    };
    // A CLI stopped early (Ctrl-C, an error) must not leave the bot running.
    const onExit = () => signalGroup("SIGKILL");
    process.once("exit", onExit);
    return {
      exitCode: () => child.exitCode,
      async stop() {
        signalGroup("SIGTERM");
        const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(3_000).then(() => false)]);
        if (!exited) signalGroup("SIGKILL");
        process.off("exit", onExit);
        await Promise.race([output.catch(() => {}), Bun.sleep(1_000)]);
      },
    };
  }

  /** Waits until the bot's socket is open: a match must not start while one player is still starting. */
  private async connected(bot: ServiceBot): Promise<void> {
    const gateway = this.server.app.services.gateway;
    const started = Date.now();
    while (!gateway.isConnected(bot.botId)) {
      const code = bot.exitCode();
      if (code !== null) throw new Error(`${bot.player.source} exited (code ${code}) before it connected: its output is above`);
      if (Date.now() - started > CONNECT_TIMEOUT_MS) {
        throw new Error(`${bot.player.source} did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (it gets POKER_SERVER=${this.url} and POKER_API_KEY; see docs/PROTOCOL.md)`);
      }
      await Bun.sleep(20);
    }
  }

  /** One match between `seats` (in seat order) on a fresh table; resolves when it ends. */
  async playMatch(seats: ServiceBot[], options: ServiceMatchOptions): Promise<LocalMatchResult> {
    const started = performance.now();
    const table = await this.api.request(
      "POST",
      "/api/tables",
      {
        maxPlayers: seats.length,
        maxHands: options.hands,
        buyIn: options.buyIn,
        smallBlind: options.smallBlind,
        bigBlind: options.bigBlind,
        actionTimeoutMs: Math.max(50, options.timeoutMs),
        seed: options.seed,
        ...(options.duplicate ? { duplicate: true } : {}),
      },
      { auth: true },
    );
    const handsWon = new Map<string, number>();
    const spectators = this.server.app.services.spectators;
    const watcher = { id: `cli_${++this.spectatorCounter}`, send: (text: string) => receive(JSON.parse(text)), close: () => {} };
    let receive: (message: SpectatorMessage) => void = () => {};
    const ended = new Promise<Extract<SpectatorMessage, { type: "match_ended" }>>((resolve) => {
      receive = (message) => {
        options.onMessage?.(message);
        if (message.type === "hand_ended") {
          const winners = new Set(message.pots.flatMap((pot) => pot.winners));
          for (const seat of winners) {
            const botId = message.stacks.find((s) => s.seat === seat)?.botId;
            if (botId) handsWon.set(botId, (handsWon.get(botId) ?? 0) + 1);
          }
          options.onHand?.(message.handNumber);
        }
        if (message.type === "match_ended") resolve(message);
      };
    });
    spectators.add(table.tableId, watcher);
    try {
      for (const seat of seats) await this.api.request("POST", `/api/tables/${table.tableId}/join`, { botId: seat.botId }, { auth: true });
      const result = await ended;
      const players: LocalPlayerResult[] = seats.map((seat, position) => {
        const record = result.players.find((p) => p.botId === seat.botId)!;
        // Late answers are the service's to judge here; it does not report them per bot.
        return { name: seat.player.name, source: seat.player.source, seat: position, finalChips: record.finalChips, profit: record.profit, handsWon: handsWon.get(seat.botId) ?? 0, timeouts: null };
      });
      const most = Math.max(...players.map((p) => p.finalChips));
      return {
        seed: options.seed,
        handsPlayed: result.handsPlayed,
        players,
        winners: players.filter((p) => p.finalChips === most).map((p) => p.name),
        phh: await this.phh(result.matchId),
        // Every card included, read from the service's own database as the ratings read them.
        histories: (await recordedMatch(this.server.database.db, result.matchId)).hands,
        elapsedMs: performance.now() - started,
      };
    } finally {
      spectators.remove(table.tableId, watcher);
    }
  }

  /** The match's hand histories as the service exports them, every page. */
  private async phh(matchId: string): Promise<string> {
    let text = "";
    let path: string | null = `/api/matches/${encodeURIComponent(matchId)}/hands?format=phh`;
    while (path) {
      // Api answers the body only; the next page is in the Link header.
      const response: Response = await fetch(this.url + path, { headers: { authorization: `Bearer ${this.api.token}` } });
      if (!response.ok) throw new Error(`reading the hand histories failed: HTTP ${response.status}`);
      text += await response.text();
      path = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
    }
    return text;
  }

  /** Stops every bot (commands get SIGTERM), then the service, and removes its storage. */
  async close(): Promise<void> {
    await Promise.all([...this.bots.values()].map((bot) => bot.stop().catch(() => {})));
    await this.server.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Starts the service, plays one match, stops it (`play` with an exec: player). */
export async function playOnService(players: LocalPlayer[], options: ServiceMatchOptions & { cwd: string; log: (line: string) => void; names?: Map<string, string> }): Promise<LocalMatchResult> {
  const service = await LocalService.start(options.cwd, options.log, options.names);
  try {
    const seats: ServiceBot[] = [];
    for (const player of players) seats.push(await service.bot(player.name, player));
    return await service.playMatch(seats, options);
  } finally {
    await service.close();
  }
}
