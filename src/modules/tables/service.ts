import { and, desc, eq, inArray } from "drizzle-orm";
import { createActor, type Actor } from "xstate";
import { anyOf, type Db } from "../../db";
import { bots, tables, type TableConfig, type TableStatus } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { cryptoRng, seededRng } from "../../poker/rng";
import type { BuiltInStrategy } from "../bots/model";
import type { Bots } from "../bots/service";
import type { Accounts } from "../credits/service";
import type { BotGateway } from "../protocol/gateway";
import type { Spectators } from "../protocol/spectators";
import { snapshotMessage } from "../protocol/messages";
import { remoteAsker, type TimeBankPolicy } from "../protocol/remote-player";
import { playMatch, type AskBot } from "./match-runner";
import { abortTable, openSeatsOf } from "./persistence";
import { freePosition, newSeatRuntime, newTableRuntime, seatsInOrder, type SeatRuntime, type TableRuntime } from "./runtime";
import { createTableMachine } from "./table-machine";
import { HandJournal } from "./journal";

export interface TablesDeps {
  db: Db;
  clock: Clock;
  accounts: Accounts;
  bots: Bots;
  gateway: BotGateway;
  spectators: Spectators;
  hostId: string;
  defaultBuyIn: number;
  timeBank: TimeBankPolicy;
  /** A match was recorded: these bots' statistics changed. */
  matchRecorded?: (botIds: string[]) => void;
  log: (message: string, error?: unknown) => void;
}

export interface CreateTableInput {
  buyIn?: number;
  smallBlind?: number;
  bigBlind?: number;
  maxPlayers?: number;
  maxHands?: number;
  actionTimeoutMs?: number;
  seed?: string;
}

export interface SeatView {
  seat: number;
  botId: string;
  chips: number;
  leaving: boolean;
}

export interface TableView {
  tableId: string;
  config: TableConfig;
  status: TableStatus;
  seats: SeatView[];
  matchId: string | null;
  handsPlayed: number;
  createdAt: string;
}

type TableActor = Actor<ReturnType<typeof createTableMachine>>;

interface HostedTable {
  table: TableRuntime;
  actor: TableActor;
  /** Joins and leaves, one at a time. */
  queue: Promise<unknown>;
  /** Resolves when the actor reaches a final state. */
  done: Promise<void>;
}

/**
 * Tables hosted by this process: their runtimes and lifecycle actors. Reads of tables hosted
 * elsewhere come from the database; joins and leaves must reach the hosting process.
 */
export class Tables {
  private readonly hosted = new Map<string, HostedTable>();
  private readonly tableOfBot = new Map<string, string>();
  private readonly machine: ReturnType<typeof createTableMachine>;
  /** Every match promise, so shutdown and tests can wait for them. */
  private readonly running = new Set<Promise<unknown>>();

  private readonly journal: HandJournal;
  private readonly askRemoteBot: AskBot;

  constructor(private readonly deps: TablesDeps) {
    this.journal = new HandJournal(deps.db, deps.clock, deps.log);
    this.askRemoteBot = remoteAsker(deps.gateway, deps.clock, deps.timeBank);
    this.machine = createTableMachine({
      playMatch: (table) => this.track(this.play(table)),
      abort: (table, error) => this.abort(table, error),
    });
    deps.gateway.snapshotProvider = (botId) => {
      const tableId = this.tableOfBot.get(botId);
      const entry = tableId ? this.hosted.get(tableId) : undefined;
      return entry ? snapshotMessage(entry.table, botId) : null;
    };
  }

  async create(developerId: string, input: CreateTableInput): Promise<TableView> {
    const config: TableConfig = {
      buyIn: input.buyIn ?? this.deps.defaultBuyIn,
      smallBlind: input.smallBlind ?? 5,
      bigBlind: input.bigBlind ?? 10,
      maxPlayers: input.maxPlayers ?? 6,
      maxHands: input.maxHands ?? 200,
      actionTimeoutMs: input.actionTimeoutMs ?? 2000,
      ...(input.seed !== undefined ? { seed: input.seed } : {}),
    };
    if (config.smallBlind > config.bigBlind) throw errors.validation("smallBlind must not exceed bigBlind", { field: "smallBlind" });
    if (config.bigBlind > config.buyIn) throw errors.validation("bigBlind must not exceed buyIn", { field: "bigBlind" });
    const now = this.deps.clock.now();
    const table = newTableRuntime(newId("tbl", now), developerId, new Date(now), config);
    await this.deps.db.insert(tables).values({
      id: table.tableId,
      createdBy: developerId,
      config,
      status: "waiting",
      hostId: this.deps.hostId,
      createdAt: table.createdAt,
    });
    this.host(table);
    return this.viewOf(table);
  }

  /** The lobby: waiting and running tables, newest first. */
  async lobby(): Promise<TableView[]> {
    const rows = await this.deps.db
      .select()
      .from(tables)
      .where(inArray(tables.status, ["waiting", "running"]))
      .orderBy(desc(tables.createdAt), desc(tables.id))
      .limit(500);
    return this.views(rows);
  }

  /** Only tables hosted by this process can be watched live. */
  isHostedHere(tableId: string): boolean {
    return this.hosted.has(tableId);
  }

  async get(tableId: string): Promise<TableView> {
    const hosted = this.hosted.get(tableId);
    if (hosted) return this.viewOf(hosted.table);
    const rows = await this.deps.db.select().from(tables).where(eq(tables.id, tableId));
    if (rows.length === 0) throw errors.notFound("Table");
    return (await this.views(rows))[0];
  }

  async join(developerId: string, tableId: string, botId: string): Promise<SeatView> {
    const bot = await this.deps.bots.findOwned(developerId, botId);
    const entry = await this.hostedEntry(tableId);
    return this.serially(entry, async () => {
      const { table } = entry;
      if (this.tableOfBot.has(botId)) throw errors.conflict("BOT_ALREADY_SEATED", "This bot already sits at a table", { tableId: this.tableOfBot.get(botId) });
      const position = freePosition(table);
      if (position === null) throw errors.conflict("TABLE_FULL", "Every seat at this table is taken");
      if (table.status !== "waiting") throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${table.status}`);
      table.reserved.add(position);
      try {
        const bought = await this.deps.accounts.buyIn(developerId, table.config.buyIn, { botId, tableId, position });
        const seat = newSeatRuntime({
          seatId: bought.seatId,
          position,
          botId,
          developerId,
          strategy: bot.strategy,
          buyIn: table.config.buyIn,
          chips: table.config.buyIn,
          timeBankMs: this.deps.timeBank.initialMs,
        });
        table.seats.set(position, seat);
        this.tableOfBot.set(botId, tableId);
        entry.actor.send({ type: "SEATS_CHANGED" });
        return seatView(seat);
      } finally {
        table.reserved.delete(position);
      }
    });
  }

  async leave(developerId: string, tableId: string, botId: string): Promise<{ tableId: string; botId: string; status: "left" | "leaving"; cashout: number | null }> {
    await this.deps.bots.findOwned(developerId, botId);
    const entry = await this.hostedEntry(tableId);
    return this.serially(entry, async () => {
      const { table } = entry;
      const seat = [...table.seats.values()].find((s) => s.botId === botId);
      if (!seat) throw errors.notFound("Seat of this bot at this table");
      if (table.status === "running") {
        seat.leaving = true;
        return { tableId, botId, status: "leaving" as const, cashout: null };
      }
      if (table.status !== "waiting") throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${table.status}`);
      await this.deps.accounts.cashout(developerId, seat.seatId, seat.chips, { botId, tableId });
      table.seats.delete(seat.position);
      this.tableOfBot.delete(botId);
      return { tableId, botId, status: "left" as const, cashout: seat.chips };
    });
  }

  /**
   * At startup: tables this host was running when it stopped are aborted (every open seat
   * cashed out at its chips after the last completed hand); waiting tables are rebuilt.
   */
  async recover(): Promise<{ aborted: number; resumed: number; seatsCashedOut: number }> {
    const rows = await this.deps.db
      .select()
      .from(tables)
      .where(and(eq(tables.hostId, this.deps.hostId), inArray(tables.status, ["waiting", "running"])));
    let aborted = 0;
    let seatsCashedOut = 0;
    const waiting = rows.filter((row) => row.status === "waiting" && !this.hosted.has(row.id));
    for (const row of rows.filter((r) => r.status === "running" && !this.hosted.has(r.id))) {
      seatsCashedOut += await abortTable(this.deps.db, row.id, new Date(this.deps.clock.now()));
      aborted += 1;
    }
    const open = await openSeatsOf(this.deps.db, waiting.map((row) => row.id));
    const botRows = open.length
      ? await this.deps.db.select().from(bots).where(anyOf(bots.id, open.map((s) => s.botId!)))
      : [];
    const strategyOf = new Map(botRows.map((b) => [b.id, b.strategy as BuiltInStrategy | null]));
    for (const row of waiting) {
      const table = newTableRuntime(row.id, row.createdBy, row.createdAt, row.config);
      for (const seat of open.filter((s) => s.tableId === row.id)) {
        table.seats.set(
          seat.position!,
          newSeatRuntime({
            seatId: seat.id,
            position: seat.position!,
            botId: seat.botId!,
            developerId: seat.developerId,
            strategy: strategyOf.get(seat.botId!) ?? null,
            buyIn: seat.buyIn,
            chips: seat.chips,
            timeBankMs: this.deps.timeBank.initialMs,
          }),
        );
        this.tableOfBot.set(seat.botId!, row.id);
      }
      this.host(table);
    }
    return { aborted, resumed: waiting.length, seatsCashedOut };
  }

  /** Resolves when every match now running has ended (tests, benchmarks, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Shutdown: running matches stop at their next hand boundary and their tables are aborted
   * (every seat cashed out at its chips after the last written hand); waiting tables keep their
   * seats and are resumed by the next start. Bounded: whatever is left is recovered at restart.
   */
  async shutdown(timeoutMs = 5_000): Promise<void> {
    for (const { table } of this.hosted.values()) table.stopRequested = true;
    this.deps.gateway.closeAll();
    this.deps.spectators.closeAll();
    const done = Promise.all([...this.hosted.values()].filter((e) => e.table.status === "running").map((e) => e.done));
    await Promise.race([done, Bun.sleep(timeoutMs)]);
    for (const { actor } of this.hosted.values()) actor.stop();
    this.hosted.clear();
    this.tableOfBot.clear();
  }

  private host(table: TableRuntime): void {
    const actor = createActor(this.machine, { input: { table } });
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    this.hosted.set(table.tableId, { table, actor, queue: Promise.resolve(), done });
    actor.subscribe({
      complete: () => {
        this.unhost(table);
        finished();
      },
      error: (error) => {
        this.deps.log(`table actor ${table.tableId} failed`, error);
        this.unhost(table);
        finished();
      },
    });
    actor.start();
  }

  private unhost(table: TableRuntime): void {
    if (this.hosted.get(table.tableId)?.table === table) this.hosted.delete(table.tableId);
    for (const seat of [...table.seats.values(), ...table.departed]) {
      if (this.tableOfBot.get(seat.botId) === table.tableId) this.tableOfBot.delete(seat.botId);
    }
  }

  private async play(table: TableRuntime): Promise<void> {
    const rng = table.config.seed !== undefined ? seededRng(table.config.seed) : cryptoRng();
    await playMatch(table, {
      clock: this.deps.clock,
      rng,
      store: this.journal,
      askBot: this.askRemoteBot,
      notify: (botId, message) => this.deps.gateway.send(botId, message),
      spectators: this.deps.spectators,
    });
    this.journal.release(table.tableId);
    this.deps.matchRecorded?.([...table.departed, ...table.seats.values()].map((seat) => seat.botId));
    // Busted and departed bots are free to sit elsewhere as soon as they leave; the rest now.
    for (const seat of [...table.departed, ...table.seats.values()]) {
      if (this.tableOfBot.get(seat.botId) === table.tableId) this.tableOfBot.delete(seat.botId);
    }
  }

  private async abort(table: TableRuntime, error: unknown): Promise<void> {
    this.deps.log(`match at table ${table.tableId} failed; aborting the table`, error);
    table.status = "aborted";
    // What is already on its way to the database lands first; the rest of the table's hands are dropped.
    this.journal.release(table.tableId);
    await this.journal.flushed();
    await abortTable(this.deps.db, table.tableId, new Date(this.deps.clock.now()));
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.running.add(promise);
    const forget = () => this.running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  private async hostedEntry(tableId: string): Promise<HostedTable> {
    const entry = this.hosted.get(tableId);
    if (entry) return entry;
    const rows = await this.deps.db.select().from(tables).where(eq(tables.id, tableId));
    if (rows.length === 0) throw errors.notFound("Table");
    if (rows[0].status !== "waiting" && rows[0].status !== "running") {
      throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${rows[0].status}`);
    }
    throw errors.conflict("TABLE_NOT_JOINABLE", "This table is hosted by another server process", { hostId: rows[0].hostId });
  }

  /** Joins and leaves of one table run one at a time (the database guards across processes). */
  private serially<T>(entry: { queue: Promise<unknown> }, work: () => Promise<T>): Promise<T> {
    const result = entry.queue.then(work, work);
    entry.queue = result.catch(() => undefined);
    return result;
  }

  private viewOf(table: TableRuntime): TableView {
    return {
      tableId: table.tableId,
      config: table.config,
      status: table.status,
      seats: seatsInOrder(table).map(seatView),
      matchId: table.matchId,
      handsPlayed: table.handNumber,
      createdAt: table.createdAt.toISOString(),
    };
  }

  private async views(rows: Array<typeof tables.$inferSelect>): Promise<TableView[]> {
    const open = await openSeatsOf(this.deps.db, rows.filter((r) => !this.hosted.has(r.id)).map((r) => r.id));
    return rows.map((row) => {
      const hosted = this.hosted.get(row.id);
      if (hosted) return this.viewOf(hosted.table);
      return {
        tableId: row.id,
        config: row.config,
        status: row.status,
        seats: open
          .filter((s) => s.tableId === row.id)
          .sort((a, b) => a.position! - b.position!)
          .map((s) => ({ seat: s.position!, botId: s.botId!, chips: s.chips, leaving: false })),
        matchId: row.matchId,
        handsPlayed: 0,
        createdAt: row.createdAt.toISOString(),
      };
    });
  }
}

function seatView(seat: SeatRuntime): SeatView {
  return { seat: seat.position, botId: seat.botId, chips: seat.chips, leaving: seat.leaving };
}
