import { and, eq, inArray, sql } from "drizzle-orm";
import { createActor, type Actor } from "xstate";
import { queryRows, type Db } from "../../db";
import { bots, matches, tables, type TableConfig } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { cryptoRng, seededRng } from "../../poker/rng";
import { deckCommitment } from "../../poker/fair-deck";
import { dealSource } from "./deals";
import { refuseIfRetired, type BotRecord, type Bots } from "../bots/service";
import type { Accounts } from "../credits/service";
import type { BotGateway } from "../protocol/gateway";
import { ANSWER_HERE, type TableCommand, type TableRelay } from "../cluster/table-relay";
import type { SpectatorSocket, Spectators } from "../protocol/spectators";
import { snapshotMessage } from "../protocol/messages";
import { remoteAsker, type TimeBankPolicy } from "../protocol/remote-player";
import { playMatch, type AskBot } from "./match-runner";
import { abortTable } from "./persistence";
import { tablesToResume } from "./resume";
import { FencedError, type FenceToken, type LeaseStanding } from "../cluster/lease";
import { newTableRuntime, type TableRuntime } from "./runtime";
import { createTableMachine } from "./table-machine";
import { isLive, shutdownReport, viewOfRuntime, viewsOfRows, type ClosedTable, type CreateTableInput, type LeaveResult, type SeatView, type TableView } from "./views";
import { HandJournal } from "./journal";
import { closeWaitingTable, expireEmptyTable, seatBot, unseatBot, type Seating } from "./seating";
import { lobbyRows } from "./lobby";
import type { Page } from "../../lib/paging";

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
  /** Waiting or running tables one developer may have (a flood would push real tables out of the lobby). */
  maxOpenTablesPerDeveloper: number;
  /** This node's lease (null without one: tests of one app): every table write is fenced by it. */
  fence?: () => FenceToken | null;
  /** Whether this node's lease provably stands: its tables deal and broadcast only then (absent: always). */
  leaseStanding?: LeaseStanding;
  log: (message: string, error?: unknown) => void;
}

export type { ClosedTable, CreateTableInput, LeaveResult, SeatView, TableView } from "./views";

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

  readonly journal: HandJournal;
  private expiry: ReturnType<typeof setInterval> | undefined;
  /** Set when this node joins its cluster: reaches the tables other nodes host. */
  relay: TableRelay | undefined;
  private readonly askRemoteBot: AskBot;
  private readonly seating: Seating;

  constructor(private readonly deps: TablesDeps) {
    this.seating = {
      db: deps.db,
      accounts: deps.accounts,
      gateway: deps.gateway,
      hostId: deps.hostId,
      initialTimeBankMs: deps.timeBank.initialMs,
      tableOfBot: this.tableOfBot,
      fence: () => this.fence(),
      seatsChanged: (table) => this.hosted.get(table.tableId)?.actor.send({ type: "SEATS_CHANGED" }),
      release: (table) => {
        this.hosted.get(table.tableId)?.actor.stop();
        this.unhost(table);
      },
    };
    this.journal = new HandJournal(deps.db, deps.clock, deps.log, () => this.fence());
    // A bot that left mid-match (or busted) is free once its cashout is written, not at the match's end.
    this.journal.onSeatsClosed = (tableId, closures) => {
      for (const { botId } of closures) if (this.tableOfBot.get(botId) === tableId) this.tableOfBot.delete(botId);
    };
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
      ...(input.duplicate ? { duplicate: true } : {}),
    };
    if (config.duplicate && config.maxPlayers !== 2) throw errors.validation("A duplicate match is heads-up: maxPlayers must be 2", { field: "duplicate" });
    const [{ open }] = await queryRows<{ open: number }>(
      this.deps.db,
      sql`select count(*)::int as open from tables where created_by = ${developerId} and status in ('waiting', 'running')`,
    );
    if (open >= this.deps.maxOpenTablesPerDeveloper) {
      throw errors.conflict("TOO_MANY_OPEN_TABLES", `A developer may have at most ${this.deps.maxOpenTablesPerDeveloper} waiting or running tables`, {
        limit: this.deps.maxOpenTablesPerDeveloper,
      });
    }
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
    return this.viewOf(table, developerId);
  }

  /** The lobby: waiting and running tables, newest first; `before` a tableId cursor. */
  async lobby(page: { limit?: number; before?: string } = {}): Promise<Page<TableView>> {
    const found = await lobbyRows(this.deps.db, page);
    return { items: await this.views(found.items), next: found.next };
  }

  private fence(): FenceToken | null {
    return this.deps.fence?.() ?? null;
  }

  hostedCount(): number {
    return this.hosted.size;
  }

  hostedStatuses = () => [...this.hosted.values()].map((entry) => entry.table.status);

  /**
   * Tables nobody sits at expire after `ttlMs` waiting (no match, no money): a developer's
   * forgotten tables do not crowd the lobby or come back at every restart.
   */
  startExpiry(ttlMs: number): void {
    this.expiry = setInterval(() => void this.expireIdle(ttlMs).catch((error) => this.deps.log("expiring idle tables failed", error)), Math.min(ttlMs / 2, 30_000));
    (this.expiry as { unref?: () => void }).unref?.();
  }

  async expireIdle(ttlMs: number): Promise<number> {
    const cutoff = this.deps.clock.now() - ttlMs;
    let expired = 0;
    for (const entry of [...this.hosted.values()]) {
      const { table } = entry;
      if (table.status !== "waiting" || table.seats.size > 0 || table.reserved.size > 0 || table.createdAt.getTime() > cutoff) continue;
      if (await this.serially(entry, () => expireEmptyTable(this.seating, table))) expired += 1;
    }
    return expired;
  }

  /** `viewerId`: the developer asking (null: anonymous); only the table's creator sees its seed. */
  async get(tableId: string, viewerId: string | null = null): Promise<TableView> {
    const hosted = this.hosted.get(tableId);
    if (hosted) return this.viewOf(hosted.table, viewerId);
    const rows = await this.deps.db.select().from(tables).where(eq(tables.id, tableId));
    if (rows.length === 0) throw errors.notFound("Table");
    if (this.relay?.reachesOtherNodes && isLive(rows[0].status)) {
      // Live state (hands played, stacks) from the host; the stored row if it does not answer.
      const live = await this.relay.forward(tableId, { op: "get", viewerId }, 1_000).catch(() => null);
      if (live) return live as TableView;
    }
    return (await this.views(rows, viewerId))[0];
  }

  /** The host's own read, for a request that arrived on another node. */
  async hostedView(tableId: string, viewerId: string | null): Promise<TableView> {
    return this.viewOf((await this.hostedEntry(tableId)).table, viewerId);
  }

  /** Joins reach the table's host, wherever the request arrived (same status codes and bodies). */
  async join(developerId: string, tableId: string, botId: string): Promise<SeatView> {
    const bot = await this.deps.bots.findOwned(developerId, botId);
    return this.atHost(tableId, { op: "join", developerId, botId }, () => this.seat(developerId, tableId, bot));
  }

  async leave(developerId: string, tableId: string, botId: string): Promise<LeaveResult> {
    await this.deps.bots.findOwned(developerId, botId);
    return this.atHost(tableId, { op: "leave", developerId, botId }, () => this.unseat(developerId, tableId, botId));
  }

  /** DELETE /api/tables/:tableId: the creator closes a waiting table; every seat is cashed out as a leave. */
  async close(developerId: string, tableId: string): Promise<ClosedTable> {
    return this.atHost(tableId, { op: "close", developerId }, () => this.closeHosted(developerId, tableId));
  }

  /** Here if this node hosts the table (or nobody can be reached), else at its host. */
  private async atHost<T>(tableId: string, command: TableCommand, here: () => Promise<T>): Promise<T> {
    const elsewhere = async () => !this.hosted.has(tableId) && (await this.hostedElsewhere(tableId));
    if (!(await elsewhere())) return here();
    const reply = await this.relay!.forwardWhileElsewhere(tableId, command, elsewhere);
    return reply === ANSWER_HERE ? here() : (reply as T);
  }

  /** Spectators may watch any live table from any node; null when there is none to watch. */
  async watch(tableId: string, socket: SpectatorSocket): Promise<TableView | null> {
    const refused = this.deps.spectators.admit(tableId, socket);
    if (refused) throw new AppError(429, refused.code, refused.message);
    let view: TableView;
    if (this.hosted.has(tableId)) view = await this.hostedView(tableId, null);
    else if (await this.hostedElsewhere(tableId)) view = (await this.relay!.watch(tableId).catch(() => null)) as TableView;
    else return null;
    if (!view) return null;
    this.deps.spectators.add(tableId, socket);
    return view;
  }

  unwatch(tableId: string, socket: SpectatorSocket): void {
    this.deps.spectators.remove(tableId, socket);
    if (this.deps.spectators.watchingHere(tableId) === 0 && !this.hosted.has(tableId)) this.relay?.unwatch(tableId);
  }

  /** A join that arrived on another node: the bot's owner is checked here too. */
  async joinHosted(developerId: string, tableId: string, botId: string): Promise<SeatView> {
    return this.seat(developerId, tableId, await this.deps.bots.findOwned(developerId, botId));
  }

  private async seat(developerId: string, tableId: string, bot: BotRecord): Promise<SeatView> {
    refuseIfRetired(bot);
    const entry = await this.hostedEntry(tableId);
    return this.serially(entry, () => seatBot(this.seating, entry.table, developerId, bot));
  }

  /** A leave that arrived on another node: the bot's owner is checked here too. */
  async leaveHosted(developerId: string, tableId: string, botId: string): Promise<LeaveResult> {
    await this.deps.bots.findOwned(developerId, botId);
    return this.unseat(developerId, tableId, botId);
  }

  private async unseat(developerId: string, tableId: string, botId: string): Promise<LeaveResult> {
    const entry = await this.hostedEntry(tableId);
    return this.serially(entry, () => unseatBot(this.seating, entry.table, developerId, botId));
  }

  /** A close that arrived here (from this node or another); the creator is checked at the host. */
  async closeHosted(developerId: string, tableId: string): Promise<ClosedTable> {
    const entry = await this.hostedEntry(tableId, "TABLE_NOT_WAITING");
    return this.serially(entry, () => closeWaitingTable(this.seating, entry.table, developerId));
  }

  /**
   * At startup: the tables this host had when it stopped (a restart, or a crash) are resumed —
   * waiting tables with their seats, running matches from their last recorded hand.
   */
  async recover(): Promise<{ running: number; waiting: number }> {
    const rows = await this.deps.db
      .select()
      .from(tables)
      .where(and(eq(tables.hostId, this.deps.hostId), inArray(tables.status, ["waiting", "running"])));
    await this.adopt(rows);
    return { running: rows.filter((r) => r.status === "running").length, waiting: rows.filter((r) => r.status === "waiting").length };
  }

  /** Hosts tables from their rows (this node's own at startup, or a dead node's it claimed). */
  async adopt(rows: Array<typeof tables.$inferSelect>): Promise<void> {
    const fresh = rows.filter((row) => !this.hosted.has(row.id));
    for (const table of await tablesToResume(this.deps.db, fresh, this.deps.timeBank.initialMs)) {
      for (const seat of table.seats.values()) this.tableOfBot.set(seat.botId, table.tableId);
      this.host(table, true);
    }
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
  /** Stops every match at a hand boundary (resumable); returns one line per table saying what became of it. */
  async shutdown(timeoutMs = 5_000): Promise<string[]> {
    clearInterval(this.expiry);
    for (const { table } of this.hosted.values()) table.stopRequested = true;
    this.deps.gateway.closeAll();
    this.deps.spectators.closeAll();
    const stopped = new Set<string>();
    const tables = [...this.hosted.values()];
    const done = Promise.all(tables.filter((e) => e.table.status === "running").map((e) => e.done.then(() => void stopped.add(e.table.tableId))));
    await Promise.race([done, Bun.sleep(timeoutMs)]);
    const report = tables.map(({ table }) => shutdownReport(table, stopped.has(table.tableId)));
    for (const { actor } of this.hosted.values()) actor.stop();
    this.hosted.clear();
    this.tableOfBot.clear();
    return report;
  }

  /** The lease is lost: another node owns these tables now. Drop them here without a write. */
  abandon(): void {
    for (const { table, actor } of this.hosted.values()) {
      table.stopRequested = true;
      actor.stop();
      this.relay?.releaseTable(table.tableId);
      // Spectators here follow the table to its new host, as a peer's spectators do.
      if (this.deps.spectators.watchingHere(table.tableId) > 0) void this.relay?.watch(table.tableId).catch(() => {});
    }
    this.hosted.clear();
    this.tableOfBot.clear();
  }

  /** `adopted`: resumed from its rows (a restart, or a takeover), not created here just now. */
  private host(table: TableRuntime, adopted = false): void {
    const actor = createActor(this.machine, { input: { table } });
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    this.hosted.set(table.tableId, { table, actor, queue: Promise.resolve(), done });
    this.relay?.hostTable(table.tableId, adopted);
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
    if (this.hosted.get(table.tableId)?.table === table) {
      this.hosted.delete(table.tableId);
      this.relay?.releaseTable(table.tableId);
    }
    for (const seat of [...table.seats.values(), ...table.departed]) {
      if (this.tableOfBot.get(seat.botId) === table.tableId) this.tableOfBot.delete(seat.botId);
      this.deps.gateway.forget(seat.botId);
    }
  }

  private async play(table: TableRuntime): Promise<void> {
    // A table this node held before (and lost to a peer) may have left a failure behind from a write in flight then.
    this.journal.release(table.tableId);
    const seeded = table.config.seed !== undefined;
    const rng = seeded ? seededRng(table.config.seed!) : cryptoRng();
    // A resumed match keeps the secret it committed to at its start.
    if (!seeded && table.deckSecret === null) {
      table.deckSecret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
      table.deckCommitment = deckCommitment(table.deckSecret);
    }
    await playMatch(table, {
      clock: this.deps.clock,
      rng,
      deckFor: dealSource(table.config, table.deckSecret, rng),
      store: this.journal,
      askBot: this.askRemoteBot,
      notify: (botId, message) => this.deps.gateway.send(botId, message),
      spectators: this.deps.spectators,
      leaseStanding: this.deps.leaseStanding,
    });
    this.journal.release(table.tableId);
    this.deps.matchRecorded?.([...table.departed, ...table.seats.values()].map((seat) => seat.botId));
    // Busted and departed bots are free to sit elsewhere as soon as they leave; the rest now.
    for (const seat of [...table.departed, ...table.seats.values()]) {
      if (this.tableOfBot.get(seat.botId) === table.tableId) this.tableOfBot.delete(seat.botId);
    }
  }

  private async abort(table: TableRuntime, error: unknown): Promise<void> {
    if (table.stopRequested) {
      // A drain: the match stopped at a hand boundary and stays resumable (a peer, or the next start, takes it).
      await this.journal.flushed();
      this.journal.release(table.tableId);
      return;
    }
    if (error instanceof FencedError) {
      // Another node owns the table now (it took it over): it plays on there; nothing to write here.
      this.deps.log(`table ${table.tableId} now belongs to another node: dropped here`);
      this.journal.release(table.tableId);
      return;
    }
    this.deps.log(`match at table ${table.tableId} failed; aborting the table`, error);
    table.status = "aborted";
    // What is already on its way to the database lands first; the rest of the table's hands are dropped.
    this.journal.release(table.tableId);
    await this.journal.flushed();
    await abortTable(this.deps.db, table.tableId, new Date(this.deps.clock.now()), this.fence());
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.running.add(promise);
    const forget = () => this.running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /** A live table another node hosts, with a cluster to reach it (else requests are answered here). */
  private async hostedElsewhere(tableId: string): Promise<boolean> {
    // Without NATS, processes sharing a database are not one service: another's table is refused (409).
    if (!this.relay?.reachesOtherNodes) return false;
    const [row] = await this.deps.db.select({ status: tables.status, hostId: tables.hostId }).from(tables).where(eq(tables.id, tableId));
    return row !== undefined && isLive(row.status) && row.hostId !== this.deps.hostId;
  }

  /** `refusal`: the code for a table that is not hosted here (finished, aborted, or on another process). */
  private async hostedEntry(tableId: string, refusal: "TABLE_NOT_JOINABLE" | "TABLE_NOT_WAITING" = "TABLE_NOT_JOINABLE"): Promise<HostedTable> {
    const entry = this.hosted.get(tableId);
    if (entry) return entry;
    const rows = await this.deps.db.select().from(tables).where(eq(tables.id, tableId));
    if (rows.length === 0) throw errors.notFound("Table");
    if (rows[0].status !== "waiting" && rows[0].status !== "running") {
      throw errors.conflict(refusal, `The table is ${rows[0].status}`);
    }
    throw errors.conflict(refusal, "This table is hosted by another server process", { hostId: rows[0].hostId });
  }

  /** Joins and leaves of one table run one at a time (the database guards across processes). */
  private serially<T>(entry: { queue: Promise<unknown> }, work: () => Promise<T>): Promise<T> {
    const result = entry.queue.then(work, work);
    entry.queue = result.catch(() => undefined);
    return result;
  }

  private viewOf(table: TableRuntime, viewerId: string | null = null): TableView {
    return viewOfRuntime(table, viewerId);
  }

  private views(rows: Array<typeof tables.$inferSelect>, viewerId: string | null = null): Promise<TableView[]> {
    return viewsOfRows(this.deps.db, rows, viewerId, (tableId) => this.hosted.get(tableId)?.table);
  }
}
