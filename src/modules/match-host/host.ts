import { and, eq, inArray } from "drizzle-orm";
import { createActor, type Actor } from "xstate";
import type { Db } from "../../db";
import { tables } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { invariant } from "../../lib/assert";
import { refuseIfRetired, type Bots } from "../bots/service";
import type { Accounts } from "../credits/service";
import type { BotGateway, ServerMessage } from "../protocol/gateway";
import type { HostCommand, TableRelay } from "../cluster/table-relay";
import type { Spectators } from "../protocol/spectators";
import { snapshotMessage } from "../protocol/messages";
import { spectatorSnapshot } from "../protocol/spectators";
import { askWithActionClock, type AskBot, type TimeBankPolicy } from "../action-clock/service";
import { FencedError, type FenceToken, type LeaseStanding } from "../cluster/lease";
import { closeWaitingTable, expireEmptyTables, seatBot, unseatBot, type Seating } from "../tables/seating";
import { closeWaitingPair, seatPair, unseatPair } from "../tables/twin-seating";
import { refuseUnlessViaCompetition, shutdownReport, viewOfRuntime, type TableView } from "../tables/views";
import type { TableHost } from "../tables/service";
import { builtInRng, dealSource } from "./deals";
import { HandJournal } from "./journal";
import { DeckSeal } from "./deck-seal";
import { playMatch } from "./match-runner";
import { DealStalledError } from "./deal-guard";
import { abortTable } from "./persistence";
import { assertTwinsTogether, MatchStarts } from "./twins";
import { isLegacyDuplicate, tablesToResume } from "./resume";
import type { TableRuntime } from "../tables/runtime";
import { createTableMachine } from "../tables/table-machine";
import { roundSecret } from "./round-decks";
import { openHostedSeats, seatChannels } from "./hosted-seats";
import { hostedBots } from "../hosted/code-store";
import type { HostedPlay } from "../hosted/players";

/** How often a node whose deals stalled tries to take its own tables up again. */
const OWN_TABLES_RETRY_MS = 2_000;

export interface MatchHostDeps {
  db: Db;
  clock: Clock;
  accounts: Accounts;
  bots: Bots;
  gateway: BotGateway;
  spectators: Spectators;
  hostId: string;
  timeBank: TimeBankPolicy;
  /** Hosted bots' play (issue 27); absent: every seat that is not built in is a remote bot. */
  hostedPlay?: HostedPlay;
  /** A match was recorded: these bots' statistics changed. */
  matchRecorded?: (botIds: string[]) => void;
  /** This node's lease (null without one: tests of one app): every table write is fenced by it. */
  fence?: () => FenceToken | null;
  /** Whether this node's lease provably stands: its tables deal and broadcast only then (absent: always). */
  leaseStanding?: LeaseStanding;
  /** Seals running matches' deck secrets (absent: under the key kept in the database). */
  deckSeal?: DeckSeal;
  log: (message: string, error?: unknown) => void;
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
 * The tables this node hosts: their runtimes, lifecycle actors and matches. Every command about a
 * hosted table (join, leave, close, read) is executed here, whichever node received it (see
 * cluster/routing.ts); one table's commands run one at a time, the database guards across nodes.
 */
export class MatchHost implements TableHost {
  private readonly hosted = new Map<string, HostedTable>();
  private readonly tableOfBot = new Map<string, string>();
  private readonly machine: ReturnType<typeof createTableMachine>;
  /** Every match promise, so shutdown and tests can wait for them. */
  private readonly running = new Set<Promise<unknown>>();
  readonly journal: HandJournal;
  private readonly deckSeal: DeckSeal;
  private expiry: ReturnType<typeof setInterval> | undefined;
  /** Set while this node waits to take its own tables up again after a stalled deal (resumeOwnTablesLater). */
  private resuming: ReturnType<typeof setTimeout> | undefined;
  /** Set when this node joins its cluster: announces the tables hosted here. */
  relay: TableRelay | undefined;
  private readonly askRemoteBot: AskBot;
  private readonly seating: Seating;
  private readonly starts: MatchStarts;

  constructor(private readonly deps: MatchHostDeps) {
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
    this.deckSeal = deps.deckSeal ?? new DeckSeal(deps.db, undefined);
    this.journal = new HandJournal(deps.db, deps.clock, deps.log, this.deckSeal, () => this.fence());
    // A bot that left mid-match (or busted) is free once its cashout is written, not at the match's end.
    this.journal.onSeatsClosed = (tableId, closures) => {
      const table = this.hosted.get(tableId)?.table;
      for (const { botId } of closures) if (table) this.freeBot(botId, table);
    };
    this.starts = new MatchStarts({
      clock: deps.clock,
      recordStart: (started) => this.journal.started(...started),
      sharedSecret: (table) => (table.config.dealRound ? roundSecret(deps.db, this.deckSeal, table.config.dealRound) : Promise.resolve(null)),
      twinOf: (table) => (table.twin ? this.hosted.get(table.twin.tableId)?.table : undefined),
      openHosted: (table, resuming, group) =>
        this.deps.hostedPlay ? openHostedSeats(this.deps.db, this.deps.hostedPlay, table, resuming, this.fence(), group) : Promise.resolve(null),
    });
    this.askRemoteBot = askWithActionClock(deps.gateway, deps.clock, deps.timeBank);
    this.machine = createTableMachine({
      playMatch: (table) => this.track(this.play(table)),
      abort: (table, error) => this.abort(table, error),
    });
    deps.gateway.snapshotProvider = (botId) => {
      const tableId = this.tableOfBot.get(botId);
      const entry = tableId ? this.hosted.get(tableId) : undefined;
      // A seat its uploaded code plays (pinned at the match's start) is not this socket's: it hears nothing of it.
      if (!entry || [...entry.table.seats.values()].some((seat) => seat.botId === botId && seat.codeVersion !== null)) return null;
      return snapshotMessage(entry.table, botId);
    };
  }

  hosts(tableId: string): boolean {
    return this.hosted.has(tableId);
  }

  /** The runtime of a table hosted here (undefined: not here). */
  runtime(tableId: string): TableRuntime | undefined {
    return this.hosted.get(tableId)?.table;
  }

  hostedCount(): number {
    return this.hosted.size;
  }

  /** The status of every table hosted here (metrics: tables by status). */
  hostedStatuses = () => [...this.hosted.values()].map((entry) => entry.table.status);

  /** A join, leave, close or read of a table hosted here, from this node or another: the one place each is executed. */
  async execute(tableId: string, command: HostCommand): Promise<unknown> {
    switch (command.op) {
      case "join": {
        const bot = await this.deps.bots.findOwned(command.developerId, command.botId);
        refuseIfRetired(bot);
        const entry = await this.entry(tableId);
        const { table } = entry;
        refuseUnlessViaCompetition(table.config, command.viaCompetition);
        if (!table.twin) return this.serially(entry, () => seatBot(this.seating, table, command.developerId, bot));
        // A duplicate pair seats only bots the service runs: each copy gets contexts of its own.
        const runsHere = bot.strategy !== null || (await hostedBots(this.deps.db, [bot.botId])).has(bot.botId);
        const pair = this.pairOf(entry);
        return this.serially(pair.queue, () => seatPair(this.seating, pair.tables, table, command.developerId, bot, runsHere));
      }
      case "leave": {
        await this.deps.bots.findOwned(command.developerId, command.botId);
        const entry = await this.entry(tableId);
        refuseUnlessViaCompetition(entry.table.config, command.viaCompetition);
        // A competition's withdrawal is before the start only (a bot in a running event plays it out).
        if (command.viaCompetition && entry.table.status !== "waiting") throw errors.conflict("TABLE_NOT_WAITING", `The table is ${entry.table.status}`);
        if (!entry.table.twin) return this.serially(entry, () => unseatBot(this.seating, entry.table, command.developerId, command.botId));
        const pair = this.pairOf(entry);
        return this.serially(pair.queue, () => unseatPair(this.seating, pair.tables, entry.table, command.developerId, command.botId));
      }
      case "close": {
        const entry = await this.entry(tableId, "TABLE_NOT_WAITING");
        refuseUnlessViaCompetition(entry.table.config, command.viaCompetition);
        if (!entry.table.twin) return this.serially(entry, () => closeWaitingTable(this.seating, entry.table, command.developerId));
        const pair = this.pairOf(entry);
        return this.serially(pair.queue, () => closeWaitingPair(this.seating, pair.tables, entry.table, command.developerId));
      }
      case "get":
        return viewOfRuntime((await this.entry(tableId)).table, command.viewerId);
    }
  }

  /** The hand in play at a table hosted here, for a spectator who just connected (null: none, or hosted elsewhere). */
  spectatorSnapshot(tableId: string): ServerMessage | null {
    const entry = this.hosted.get(tableId);
    return entry ? spectatorSnapshot(entry.table) : null;
  }

  /** Hosts a table: one just created here, or `adopted` from its rows (a restart, or a takeover). */
  host(table: TableRuntime, adopted = false): void {
    invariant(!this.hosted.has(table.tableId), `table ${table.tableId} is hosted once on a node`);
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
      // A pair expires as one, from its copy 1.
      if (table.twin?.copy === 2 || table.status !== "waiting" || table.seats.size > 0 || table.reserved.size > 0 || table.createdAt.getTime() > cutoff) continue;
      const pair = table.twin ? this.pairOf(entry) : { queue: entry, tables: [table] };
      if (await this.serially(pair.queue, () => expireEmptyTables(this.seating, pair.tables))) expired += pair.tables.length;
    }
    return expired;
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
    const fresh = rows.filter((row) => !this.hosted.has(row.id) && !isLegacyDuplicate(row));
    // A duplicate match of the one-match model (before issue 32) never plays on: its seats are cashed out at their last recorded stacks.
    for (const legacy of rows.filter(isLegacyDuplicate)) {
      this.deps.log(`table ${legacy.id}: a duplicate match of the one-match model is not resumed; aborted, its seats cashed out`);
      await abortTable(this.deps.db, legacy.id, new Date(this.deps.clock.now()), { fence: this.fence() });
    }
    assertTwinsTogether(fresh, (tableId) => this.hosted.has(tableId));
    for (const table of await tablesToResume(this.deps.db, fresh, this.deps.timeBank.initialMs, this.deckSeal)) {
      for (const seat of table.seats.values()) this.tableOfBot.set(seat.botId, table.tableId);
      this.host(table, true);
    }
  }

  /** Resolves when every match now running has ended (tests, benchmarks, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Shutdown: running matches stop at their next hand boundary, resumable (a peer, or the next
   * start, takes them); waiting tables keep their seats. Bounded: whatever is left is recovered at
   * restart. Returns one line per table saying what became of it.
   */
  async shutdown(timeoutMs = 5_000): Promise<string[]> {
    clearInterval(this.expiry);
    clearTimeout(this.resuming);
    for (const { table } of this.hosted.values()) table.stopRequested = true;
    this.deps.gateway.closeAll();
    this.deps.spectators.closeAll();
    const stopped = new Set<string>();
    const entries = [...this.hosted.values()];
    const done = Promise.all(entries.filter((e) => e.table.status === "running").map((e) => e.done.then(() => void stopped.add(e.table.tableId))));
    await Promise.race([done, Bun.sleep(timeoutMs)]);
    const report = entries.map(({ table }) => shutdownReport(table, stopped.has(table.tableId)));
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

  private fence(): FenceToken | null {
    return this.deps.fence?.() ?? null;
  }

  private unhost(table: TableRuntime): void {
    if (this.hosted.get(table.tableId)?.table === table) {
      this.hosted.delete(table.tableId);
      this.relay?.releaseTable(table.tableId);
    }
    for (const seat of [...table.seats.values(), ...table.departed]) {
      this.freeBot(seat.botId, table);
      this.deps.gateway.forget(seat.botId);
    }
  }

  /**
   * A bot's seat at `table` is gone (its match ended, it left or busted): it is free, unless it still
   * plays the other copy of a duplicate pair here (a pair counts as one seating).
   */
  private freeBot(botId: string, table: TableRuntime): void {
    if (this.tableOfBot.get(botId) !== table.tableId) return;
    const twin = table.twin ? this.hosted.get(table.twin.tableId)?.table : undefined;
    if (twin && twin.status === "running" && [...twin.seats.values()].some((seat) => seat.botId === botId)) this.tableOfBot.set(botId, twin.tableId);
    else this.tableOfBot.delete(botId);
  }

  /** A duplicate pair's tables hosted here (copy 1 first), and the queue its commands share (copy 1's, or the one left). */
  private pairOf(entry: HostedTable): { queue: { queue: Promise<unknown> }; tables: TableRuntime[] } {
    const twin = this.hosted.get(entry.table.twin!.tableId);
    const entries = twin ? [entry, twin].sort((a, b) => a.table.twin!.copy - b.table.twin!.copy) : [entry];
    return { queue: entries[0], tables: entries.map((e) => e.table) };
  }

  private async play(table: TableRuntime): Promise<void> {
    // A table this node held before (and lost to a peer) may have left a failure behind from a write in flight then.
    this.journal.release(table.tableId);
    // The match has begun from here (leaves are leaves of a running match), though its hosted seats take a moment to open.
    table.status = "running";
    // A duplicate pair's copies start together (twins.ts): one secret, each copy its own contexts.
    const { players: hosted, resuming } = await this.starts.start(table, table.matchId !== null);
    if (table.stopRequested) {
      await hosted?.close();
      throw new Error("the server is shutting down");
    }
    const channels = seatChannels(hosted, { ask: this.askRemoteBot, send: (botId, message) => this.deps.gateway.send(botId, message) }, this.deps.clock, this.deps.timeBank);
    try {
      await playMatch(table, {
        clock: this.deps.clock,
        rng: builtInRng(table),
        deckFor: dealSource(table),
        resuming,
        store: this.journal,
        ...channels,
        spectators: this.deps.spectators,
        leaseStanding: this.deps.leaseStanding,
        onHandFinished: hosted ? () => hosted.handFinished() : undefined,
        beforeFinish: hosted ? () => hosted.settle() : undefined,
      });
      // Busted and departed bots are free to sit elsewhere as soon as they leave; the rest now (a pair's, once both copies end):
      // their seats closed with the match end's transaction, so a join (the ladder's next table) must not find them still here
      // while the contexts close.
      for (const seat of [...table.departed, ...table.seats.values()]) this.freeBot(seat.botId, table);
    } finally {
      // The match ended, or stopped (abort, shutdown, a lost lease): its contexts go with it.
      await hosted?.close();
    }
    this.journal.release(table.tableId);
    this.deps.matchRecorded?.([...table.departed, ...table.seats.values()].map((seat) => seat.botId));
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
    if (error instanceof DealStalledError) {
      // The node was cut off from its database (or its lease) for long: the match stops here without a
      // write, resumable, and this node takes its own tables up again once its database answers.
      this.deps.log(`${error.message}: dropped here until the database answers, then resumed`);
      this.journal.release(table.tableId);
      this.resumeOwnTablesLater();
      return;
    }
    this.deps.log(`match at table ${table.tableId} failed; aborting the table`, error);
    table.status = "aborted";
    // What is already on its way to the database lands first; the rest of the table's hands are dropped.
    this.journal.release(table.tableId);
    await this.journal.flushed();
    await abortTable(this.deps.db, table.tableId, new Date(this.deps.clock.now()), { fence: this.fence(), deckSecret: table.deckSecret });
  }

  /** After a stalled deal: this node's own live tables are adopted again from their rows as soon as the database answers (a retry every few seconds; once). */
  private resumeOwnTablesLater(): void {
    if (this.resuming) return;
    const attempt = (): void => {
      this.resuming = setTimeout(() => {
        this.recover().then(
          () => (this.resuming = undefined),
          () => attempt(),
        );
      }, OWN_TABLES_RETRY_MS);
      (this.resuming as { unref?: () => void }).unref?.();
    };
    attempt();
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.running.add(promise);
    const forget = () => this.running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /** A table hosted here; else the refusal a command about it gets (unknown, ended, or on another process). */
  private async entry(tableId: string, refusal: "TABLE_NOT_JOINABLE" | "TABLE_NOT_WAITING" = "TABLE_NOT_JOINABLE"): Promise<HostedTable> {
    const entry = this.hosted.get(tableId);
    if (entry) return entry;
    const [row] = await this.deps.db.select({ status: tables.status, hostId: tables.hostId }).from(tables).where(eq(tables.id, tableId));
    if (!row) throw errors.notFound("Table");
    if (row.status !== "waiting" && row.status !== "running") throw errors.conflict(refusal, `The table is ${row.status}`);
    // Ours in the database, not yet here: this node has just claimed it (a takeover) and is resuming it.
    if (row.hostId === this.deps.hostId) throw new AppError(503, "TABLE_HOST_UNAVAILABLE", "This node is taking the table over: retry", { tableId }, { "Retry-After": "1" });
    throw errors.conflict(refusal, "This table is hosted by another server process", { hostId: row.hostId });
  }

  /** Joins and leaves of one table run one at a time (the database guards across processes). */
  private serially<T>(entry: { queue: Promise<unknown> }, work: () => Promise<T>): Promise<T> {
    const result = entry.queue.then(work, work);
    entry.queue = result.catch(() => undefined);
    return result;
  }

  /** The view of a table hosted here, for lists that mix hosted and stored tables. */
  view(tableId: string, viewerId: string | null): TableView | undefined {
    const entry = this.hosted.get(tableId);
    return entry ? viewOfRuntime(entry.table, viewerId) : undefined;
  }
}
