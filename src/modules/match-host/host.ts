import { and, eq, inArray } from "drizzle-orm";
import { createActor } from "xstate";
import type { Db } from "../../db";
import { tables } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import type { BotGateway } from "../protocol/gateway";
import type { Spectators } from "../protocol/spectators";
import type { AskedSeats } from "../seats/model";
import { remoteSeats } from "../seats/remote";
import type { TimeBankPolicy } from "../seats/rules";
import { FencedError, type FenceToken, type LeaseStanding } from "../cluster/lease";
import { shutdownReport } from "../tables/views";
import { TABLE_COLUMNS, type TableRow } from "../../db/table-config";
import type { TableHost } from "../tables/service";
import type { HeldTables } from "../tables/held-tables";
import type { TableCommands } from "../tables/table-commands";
import { builtInRng, dealSource } from "./deals";
import { HandJournal } from "./journal";
import { DeckSeal } from "./deck-seal";
import { playMatch } from "./match-runner";
import { DealStalledError } from "./deal-guard";
import { abortTable } from "./persistence";
import { assertTwinsTogether, MatchStarts } from "./twins";
import { isLegacyDuplicate, tablesToResume } from "./resume";
import type { TableRuntime } from "../tables/runtime";
import { createTableMachine, type AbortOutcome } from "../tables/table-machine";
import { roundSecret } from "./round-decks";
import { openHostedSeats, seatChannels } from "./hosted-seats";
import type { HostedPlay } from "../hosted/players";

/** How often a node whose deals stalled tries to take its own tables up again. */
const OWN_TABLES_RETRY_MS = 2_000;

export interface MatchHostDeps {
  db: Db;
  clock: Clock;
  /** Which tables this node holds (this host adds and removes them) and where each bot sits. */
  held: HeldTables;
  /** The commands about the held tables: the idle ones expire through them (startExpiry). */
  commands: TableCommands;
  gateway: BotGateway;
  spectators: Spectators;
  hostId: string;
  timeBank: TimeBankPolicy;
  /** Hosted bots' play (issue 27). */
  hostedPlay: HostedPlay;
  /** A match was recorded: these bots' statistics changed. */
  matchRecorded: (botIds: string[]) => void;
  /** This node's lease (null without one: tests of one app): every table write is fenced by it. */
  fence: () => FenceToken | null;
  /** Whether this node's lease provably stands: its tables deal and broadcast only then (undefined: no lease, one app alone). */
  leaseStanding: LeaseStanding | undefined;
  /** Seals running matches' deck secrets. */
  deckSeal: DeckSeal;
  log: (message: string, error?: unknown) => void;
}

/**
 * Runs the matches of the tables this node holds: starts each table's lifecycle actor (the machine
 * decides its status), plays, aborts, resumes and drains their matches. Which tables are held, and
 * where each bot sits, is HeldTables' (tables/held-tables.ts); the commands about them are
 * TableCommands' (tables/table-commands.ts).
 */
export class MatchHost implements TableHost {
  private readonly held: HeldTables;
  private readonly machine: ReturnType<typeof createTableMachine>;
  /** Every match promise, so shutdown and tests can wait for them. */
  private readonly running = new Set<Promise<unknown>>();
  readonly journal: HandJournal;
  private readonly deckSeal: DeckSeal;
  private expiry: ReturnType<typeof setInterval> | undefined;
  /** Set while this node waits to take its own tables up again after a stalled deal (resumeOwnTablesLater). */
  private resuming: ReturnType<typeof setTimeout> | undefined;
  private readonly askRemoteBot: AskedSeats;
  private readonly starts: MatchStarts;

  constructor(private readonly deps: MatchHostDeps) {
    this.held = deps.held;
    this.deckSeal = deps.deckSeal;
    // A bot that left mid-match (or busted) is free once its cashout is written, not at the match's end.
    const seatsClosed = (tableId: string, closures: Array<{ botId: string }>) => {
      const table = this.held.get(tableId)?.table;
      for (const { botId } of closures) if (table) this.held.freeBot(botId, table);
    };
    this.journal = new HandJournal(deps.db, deps.clock, deps.log, this.deckSeal, () => this.fence(), seatsClosed);
    this.starts = new MatchStarts({
      clock: deps.clock,
      recordStart: (started) => this.journal.started(...started),
      sharedSecret: (table) => (table.config.dealRound ? roundSecret(deps.db, this.deckSeal, table.config.dealRound) : Promise.resolve(null)),
      twinOf: (table) => (table.twin ? this.held.get(table.twin.tableId)?.table : undefined),
      openHosted: (table, resuming, group) =>
        openHostedSeats(this.deps.db, this.deps.hostedPlay, table, resuming, this.fence(), group),
    });
    this.askRemoteBot = remoteSeats(deps.gateway, deps.clock, deps.timeBank);
    this.machine = createTableMachine({
      playMatch: (table) => this.track(this.play(table)),
      abort: (table, error) => this.abort(table, error),
    });
  }

  hosts(tableId: string): boolean {
    return this.held.has(tableId);
  }

  /** The runtime of a table hosted here (undefined: not here). */
  runtime(tableId: string): TableRuntime | undefined {
    return this.held.get(tableId)?.table;
  }

  /** The status of every table hosted here (metrics: tables by status). */
  hostedStatuses = () => this.held.statuses();

  /** Hosts a table: one just created here, or `adopted` from its rows (a restart, or a takeover). */
  host(table: TableRuntime, adopted = false): void {
    const actor = createActor(this.machine, { input: { table } });
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    this.held.hold({ table, actor, queue: Promise.resolve(), done }, adopted);
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
    this.expiry = setInterval(() => void this.deps.commands.expireIdle(ttlMs).catch((error) => this.deps.log("expiring idle tables failed", error)), Math.min(ttlMs / 2, 30_000));
    (this.expiry as { unref?: () => void }).unref?.();
  }

  /**
   * At startup: the tables this host had when it stopped (a restart, or a crash) are resumed —
   * waiting tables with their seats, running matches from their last recorded hand.
   */
  async recover(): Promise<{ running: number; waiting: number }> {
    const rows = await this.deps.db
      .select(TABLE_COLUMNS)
      .from(tables)
      .where(and(eq(tables.hostId, this.deps.hostId), inArray(tables.status, ["waiting", "running"])));
    await this.adopt(rows);
    return { running: rows.filter((r) => r.status === "running").length, waiting: rows.filter((r) => r.status === "waiting").length };
  }

  /** Hosts tables from their rows (this node's own at startup, or a dead node's it claimed). */
  async adopt(rows: TableRow[]): Promise<void> {
    const fresh = rows.filter((row) => !this.held.has(row.id) && !isLegacyDuplicate(row));
    // A duplicate match of the one-match model (before issue 32) never plays on: its seats are cashed out at their last recorded stacks.
    for (const legacy of rows.filter(isLegacyDuplicate)) {
      this.deps.log(`table ${legacy.id}: a duplicate match of the one-match model is not resumed; aborted, its seats cashed out`);
      await abortTable(this.deps.db, legacy.id, new Date(this.deps.clock.now()), { fence: this.fence() });
    }
    assertTwinsTogether(fresh, (tableId) => this.held.has(tableId));
    for (const table of await tablesToResume(this.deps.db, fresh, this.deps.timeBank.initialMs, this.deckSeal)) {
      for (const seat of table.seats.values()) this.held.tableOfBot.set(seat.botId, table.tableId);
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
    const entries = this.held.all();
    for (const { table } of entries) table.requestStop();
    this.deps.gateway.closeAll();
    this.deps.spectators.closeAll();
    const stopped = new Set<string>();
    const done = Promise.all(entries.filter((e) => e.table.status === "running").map((e) => e.done.then(() => void stopped.add(e.table.tableId))));
    await Promise.race([done, Bun.sleep(timeoutMs)]);
    const report = entries.map(({ table }) => shutdownReport(table, stopped.has(table.tableId)));
    for (const { actor } of this.held.releaseAll("shutdown")) actor.stop();
    return report;
  }

  /** The lease is lost: another node owns these tables now. Drop them here without a write. */
  abandon(): void {
    // Spectators here follow each table to its new host, as a peer's spectators do (the relay hears `lost`).
    for (const { table, actor } of this.held.releaseAll("lost")) {
      table.requestStop();
      actor.stop();
    }
  }

  private fence(): FenceToken | null {
    return this.deps.fence();
  }

  private unhost(table: TableRuntime): void {
    this.held.release(table);
    for (const seat of [...table.seats.values(), ...table.departed]) {
      this.held.freeBot(seat.botId, table);
      this.deps.gateway.forget(seat.botId);
    }
  }

  private async play(table: TableRuntime): Promise<void> {
    // A table this node held before (and lost to a peer) may have left a failure behind from a write in flight then.
    this.journal.release(table.tableId);
    // The match has begun from here (the machine is running: leaves are leaves of a running match), though its hosted seats take a moment to open.
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
        recorded: () => this.held.get(table.tableId)?.actor.send({ type: "MATCH_RECORDED" }),
      });
      // Busted and departed bots are free to sit elsewhere as soon as they leave; the rest now (a pair's, once both copies end):
      // their seats closed with the match end's transaction, so a join (the ladder's next table) must not find them still here
      // while the contexts close.
      for (const seat of [...table.departed, ...table.seats.values()]) this.held.freeBot(seat.botId, table);
    } finally {
      // The match ended, or stopped (abort, shutdown, a lost lease): its contexts go with it.
      await hosted?.close();
    }
    this.journal.release(table.tableId);
    this.deps.matchRecorded([...table.departed, ...table.seats.values()].map((seat) => seat.botId));
  }

  private async abort(table: TableRuntime, error: unknown): Promise<AbortOutcome> {
    if (table.stopRequested) {
      // A drain: the match stopped at a hand boundary and stays resumable (a peer, or the next start, takes it).
      await this.journal.flushed();
      this.journal.release(table.tableId);
      return "released";
    }
    if (error instanceof FencedError) {
      // Another node owns the table now (it took it over): it plays on there; nothing to write here.
      this.deps.log(`table ${table.tableId} now belongs to another node: dropped here`);
      this.journal.release(table.tableId);
      return "released";
    }
    if (error instanceof DealStalledError) {
      // The node was cut off from its database (or its lease) for long: the match stops here without a
      // write, resumable, and this node takes its own tables up again once its database answers.
      this.deps.log(`${error.message}: dropped here until the database answers, then resumed`);
      this.journal.release(table.tableId);
      this.resumeOwnTablesLater();
      return "released";
    }
    this.deps.log(`match at table ${table.tableId} failed; aborting the table`, error);
    // What is already on its way to the database lands first; the rest of the table's hands are dropped.
    this.journal.release(table.tableId);
    await this.journal.flushed();
    await abortTable(this.deps.db, table.tableId, new Date(this.deps.clock.now()), { fence: this.fence(), deckSecret: table.deckSecret });
    return "aborted";
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
}
