import { eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { tables, type LadderFormat, type TableConfig } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Page } from "../../lib/paging";
import { TABLE_DEFAULTS } from "../../config";
import type { Bots } from "../bots/service";
import type { TableRouting } from "../cluster/routing";
import type { HostCommand } from "../cluster/table-relay";
import { TableRuntime } from "./runtime";
import type { ServerMessage } from "../protocol/gateway";
import type { SpectatorSocket, Spectators } from "../protocol/spectators";
import type { BotGateway } from "../protocol/gateway";
import { presentBots } from "../protocol/presence";
import { lobbyRows } from "./lobby";
import { TABLE_COLUMNS, type TableRow } from "../../db/table-config";
import { TableConfigIds } from "./config-rows";
import type { TableCommands } from "./table-commands";
import type { HeldTables } from "./held-tables";
import { isLive, viewsOfRows, type HandsRecorded, type ClosedTable, type CreateTableInput, type LeaveResult, type SeatView, type TableView } from "./views";

/** Hosts a table just created on this node: declared here, so the table module depends on no match code (match-host/host.ts implements it). */
export interface TableHost {
  host(table: TableRuntime): void;
}

export interface TablesDeps {
  db: Db;
  clock: Clock;
  bots: Bots;
  spectators: Spectators;
  /** Whether a remote bot's socket is open here (a join warns when it is connected nowhere). */
  gateway: BotGateway;
  host: TableHost;
  /** The tables this node holds: their live state. */
  held: HeldTables;
  /** Joins, leaves, closes and reads of the tables held here. */
  commands: TableCommands;
  routing: TableRouting;
  handsRecorded: HandsRecorded;
  hostId: string;
  defaultBuyIn: number;
  /** Waiting or running tables one developer may have (a flood would push real tables out of the lobby). */
  maxOpenTablesPerDeveloper: number;
  /** Refuses a join past the per-developer cap on hosted seats (hosted/code-store.ts refuseIfHostedSeatsFull). */
  hostedSeatCap: (developerId: string, botId: string) => Promise<void>;
}

export type { ClosedTable, CreateTableInput, LeaveResult, SeatView, TableView } from "./views";

/**
 * The table resource: create, list, read, join, leave, close and watch. Any node answers; a
 * command about a table runs where the table is hosted (cluster/routing.ts decides where, the
 * match host executes it).
 */
export class Tables {
  /** The shared config rows this node has seen (table_configs). */
  private readonly configIds: TableConfigIds;

  constructor(private readonly deps: TablesDeps) {
    this.configIds = new TableConfigIds(deps.db);
  }

  async create(developerId: string, input: CreateTableInput): Promise<TableView> {
    const config: TableConfig = {
      buyIn: input.buyIn ?? this.deps.defaultBuyIn,
      smallBlind: input.smallBlind ?? TABLE_DEFAULTS.smallBlind,
      bigBlind: input.bigBlind ?? TABLE_DEFAULTS.bigBlind,
      maxPlayers: input.maxPlayers ?? TABLE_DEFAULTS.maxPlayers,
      maxHands: input.maxHands ?? TABLE_DEFAULTS.maxHands,
      actionTimeoutMs: input.actionTimeoutMs ?? TABLE_DEFAULTS.actionTimeoutMs,
      ...(input.seed !== undefined ? { seed: input.seed } : {}),
      ...(input.resetStacks !== undefined ? { resetStacks: input.resetStacks } : {}),
      ...(input.duplicate ? { duplicate: true } : {}),
    };
    if (config.duplicate && config.maxPlayers !== 2) throw errors.validation("A duplicate match is heads-up: maxPlayers must be 2", { field: "duplicate" });
    // A duplicate pair's two tables count once.
    const [{ open }] = await queryRows<{ open: number }>(
      this.deps.db,
      sql`select count(*)::int as open from tables where created_by = ${developerId} and status in ('waiting', 'running') and copy is distinct from 2`,
    );
    if (open >= this.deps.maxOpenTablesPerDeveloper) {
      throw errors.conflict("TOO_MANY_OPEN_TABLES", `A developer may have at most ${this.deps.maxOpenTablesPerDeveloper} waiting or running tables`, {
        limit: this.deps.maxOpenTablesPerDeveloper,
      });
    }
    if (config.smallBlind > config.bigBlind) throw errors.validation("smallBlind must not exceed bigBlind", { field: "smallBlind" });
    if (config.bigBlind > config.buyIn) throw errors.validation("bigBlind must not exceed buyIn", { field: "bigBlind" });
    if (config.resetStacks !== undefined && (config.resetStacks < config.bigBlind || config.resetStacks > config.buyIn)) {
      throw errors.validation("resetStacks must be at least bigBlind and at most buyIn (the buy-in is the bankroll: at least one full stack)", { field: "resetStacks" });
    }
    const tableId = await this.open(developerId, config, null);
    return this.deps.held.view(tableId, developerId)!;
  }

  /**
   * A table the ladder made (docs/LADDER.md): its settings are the ladder's, its creator the house
   * account, and it counts toward no developer's cap on open tables. Its seats are taken by the
   * matchmaker through the ordinary join (each buy-in off its bot's owner's balance). A duplicate
   * config makes a pair: the answer is copy 1's table.
   */
  async createLadderTable(format: LadderFormat, creator: string, config: TableConfig): Promise<string> {
    return this.open(creator, config, format);
  }

  /**
   * A challenge's or a tournament's table (competitions/): its config says which (`unrated`,
   * `tournamentId`), so its seats are taken only through `joinVia`, never the public join. Counts
   * toward no developer's cap on open tables (the competition bounds itself).
   */
  async createCompetitionTable(creator: string, config: TableConfig): Promise<string> {
    return this.open(creator, config, null);
  }

  /** A competition seats a bot (its owner's buy-in, as any join), wherever the table is hosted. */
  joinVia(developerId: string, tableId: string, botId: string): Promise<SeatView> {
    return this.atHost(tableId, { op: "join", developerId, botId, viaCompetition: true });
  }

  /** A competition takes a bot off its waiting table (its buy-in back, as any leave). */
  leaveVia(developerId: string, tableId: string, botId: string): Promise<LeaveResult> {
    return this.atHost(tableId, { op: "leave", developerId, botId, viaCompetition: true });
  }

  /** A competition closes its waiting table (every seat refunded, as any close). */
  closeVia(creator: string, tableId: string): Promise<ClosedTable> {
    return this.atHost(tableId, { op: "close", developerId: creator, viaCompetition: true });
  }

  /**
   * A new waiting table: its row, then hosted on this node (the node that creates a table hosts it).
   * A duplicate config makes two twin tables in one statement, copy 1 and copy 2 (docs/FAIRNESS.md),
   * hosted together; the answer is copy 1's.
   */
  private async open(creator: string, config: TableConfig, ladder: LadderFormat | null): Promise<string> {
    const now = this.deps.clock.now();
    const createdAt = new Date(now);
    const ids = config.duplicate ? [newId("tbl", now), newId("tbl", now)] : [newId("tbl", now)];
    const runtimes = ids.map((id, i) =>
      new TableRuntime(id, creator, createdAt, config, ladder, ids.length === 2 ? { copy: (i + 1) as 1 | 2, tableId: ids[1 - i], matchId: null } : null),
    );
    const configId = await this.configIds.of(config);
    await this.deps.db.insert(tables).values(
      runtimes.map((t) => ({ id: t.tableId, createdBy: creator, configId, status: "waiting" as const, hostId: this.deps.hostId, createdAt, ladder, twinId: t.twin?.tableId ?? null, copy: t.twin?.copy ?? null })),
    );
    for (const table of runtimes) this.deps.host.host(table);
    return ids[0];
  }

  /** The lobby: waiting and running tables, newest first; `before` a tableId cursor; `ladderOnly`: only the ladder's. */
  async lobby(page: { limit?: number; before?: string; ladderOnly?: boolean } = {}): Promise<Page<TableView>> {
    const found = await lobbyRows(this.deps.db, page);
    return { items: await this.views(found.items), next: found.next };
  }

  /** `viewerId`: the developer asking (null: anonymous); only the table's creator sees its seed. */
  async get(tableId: string, viewerId: string | null = null): Promise<TableView> {
    const hosted = this.deps.held.view(tableId, viewerId);
    if (hosted) return hosted;
    const rows = await this.deps.db.select(TABLE_COLUMNS).from(tables).where(eq(tables.id, tableId));
    if (rows.length === 0) throw errors.notFound("Table");
    if (isLive(rows[0].status)) {
      // Live state (hands played, stacks) from the host; the stored row if it does not answer.
      const live = await this.deps.routing.liveView(tableId, viewerId);
      if (live) return live as TableView;
    }
    return (await this.views(rows, viewerId))[0];
  }

  /**
   * Joins reach the table's host, wherever the request arrived (same status codes and bodies). A
   * remote bot connected to no node is seated as asked, with a warning: it will time out on every
   * turn until it connects.
   */
  async join(developerId: string, tableId: string, botId: string): Promise<SeatView & { warning?: { code: "BOT_NOT_CONNECTED"; message: string } }> {
    const bot = await this.deps.bots.findOwned(developerId, botId);
    await this.deps.hostedSeatCap(developerId, botId);
    const seat = await this.atHost<SeatView>(tableId, { op: "join", developerId, botId });
    if (bot.strategy !== null || this.deps.gateway.isConnected(botId)) return seat;
    const [hosted, present] = await Promise.all([this.deps.bots.codeVersions([botId]), presentBots(this.deps.db, [botId])]);
    if (hosted.has(botId) || present.has(botId)) return seat;
    const message = `${bot.name} is not connected: it will time out on every turn until it connects (run it: bun examples/starter-bot.ts --bot ${bot.name})`;
    return { ...seat, warning: { code: "BOT_NOT_CONNECTED", message } };
  }

  async leave(developerId: string, tableId: string, botId: string): Promise<LeaveResult> {
    await this.deps.bots.findOwned(developerId, botId);
    return this.atHost(tableId, { op: "leave", developerId, botId });
  }

  /** DELETE /api/tables/:tableId: the creator closes a waiting table; every seat is cashed out as a leave. */
  close(developerId: string, tableId: string): Promise<ClosedTable> {
    return this.atHost(tableId, { op: "close", developerId });
  }

  /** Spectators may watch any live table from any node; null when there is none to watch. */
  async watch(tableId: string, socket: SpectatorSocket): Promise<TableView | null> {
    const refused = this.deps.spectators.admit(tableId, socket);
    if (refused) throw new AppError(429, refused.code, refused.message);
    let view: TableView | null | undefined = this.deps.held.view(tableId, null);
    if (!view && (await this.deps.routing.hostedElsewhere(tableId))) view = (await this.deps.routing.watch(tableId).catch(() => null)) as TableView | null;
    if (!view) return null;
    this.deps.spectators.add(tableId, socket);
    return view;
  }

  /** The hand in play at a table hosted here, for a spectator who just connected (null: none, or hosted elsewhere). */
  spectatorSnapshot(tableId: string): ServerMessage | null {
    return this.deps.held.spectatorSnapshot(tableId);
  }

  unwatch(tableId: string, socket: SpectatorSocket): void {
    this.deps.spectators.remove(tableId, socket);
    if (this.deps.spectators.watchingHere(tableId) === 0 && !this.deps.held.has(tableId)) this.deps.routing.unwatch(tableId);
  }

  private atHost<T>(tableId: string, command: HostCommand): Promise<T> {
    return this.deps.routing.run(tableId, command, () => this.deps.commands.execute(tableId, command)) as Promise<T>;
  }

  private views(rows: TableRow[], viewerId: string | null = null): Promise<TableView[]> {
    return viewsOfRows(this.deps.db, rows, viewerId, (tableId) => this.deps.held.get(tableId)?.table, this.deps.handsRecorded);
  }
}
