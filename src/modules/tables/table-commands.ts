import { eq } from "drizzle-orm";
import type { Db } from "../../db";
import { tables } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { refuseIfRetired, type Bots } from "../bots/service";
import type { HostCommand } from "../cluster/table-relay";
import type { HeldTable, HeldTables } from "./held-tables";
import { closeWaitingTable, expireEmptyTables, seatBot, unseatBot, type Seating } from "./seating";
import { closeWaitingPair, seatPair, unseatPair } from "./twin-seating";
import { refuseUnlessViaCompetition, viewOfRuntime } from "./views";

/**
 * Joins, leaves, closes and reads of the tables this node holds, from this node or another (the
 * cluster's routing brings each here): the one place each is executed. One table's commands run
 * one at a time (a duplicate pair's share one queue); the database guards across nodes.
 */
export class TableCommands {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      bots: Bots;
      held: HeldTables;
      seating: Seating;
      hostId: string;
    },
  ) {}

  async execute(tableId: string, command: HostCommand): Promise<unknown> {
    const { seating, held } = this.deps;
    switch (command.op) {
      case "join": {
        const bot = await this.deps.bots.findOwned(command.developerId, command.botId);
        refuseIfRetired(bot);
        const entry = await this.entry(tableId);
        const { table } = entry;
        refuseUnlessViaCompetition(table.config, command.viaCompetition);
        if (!table.twin) return serially(entry, () => seatBot(seating, table, command.developerId, bot));
        // A duplicate pair seats only bots the service runs: each copy gets contexts of its own.
        const runsHere = bot.strategy !== null || (await this.deps.bots.codeVersions([bot.botId])).has(bot.botId);
        const pair = held.pairOf(entry);
        return serially(pair.queue, () => seatPair(seating, pair.tables, table, command.developerId, bot, runsHere));
      }
      case "leave": {
        await this.deps.bots.findOwned(command.developerId, command.botId);
        const entry = await this.entry(tableId);
        refuseUnlessViaCompetition(entry.table.config, command.viaCompetition);
        // A competition's withdrawal is before the start only (a bot in a running event plays it out).
        if (command.viaCompetition && entry.table.status !== "waiting") throw errors.conflict("TABLE_NOT_WAITING", `The table is ${entry.table.status}`);
        if (!entry.table.twin) return serially(entry, () => unseatBot(seating, entry.table, command.developerId, command.botId));
        const pair = held.pairOf(entry);
        return serially(pair.queue, () => unseatPair(seating, pair.tables, entry.table, command.developerId, command.botId));
      }
      case "close": {
        const entry = await this.entry(tableId, "TABLE_NOT_WAITING");
        refuseUnlessViaCompetition(entry.table.config, command.viaCompetition);
        if (!entry.table.twin) return serially(entry, () => closeWaitingTable(seating, entry.table, command.developerId));
        const pair = held.pairOf(entry);
        return serially(pair.queue, () => closeWaitingPair(seating, pair.tables, entry.table, command.developerId));
      }
      case "get":
        return viewOfRuntime((await this.entry(tableId)).table, command.viewerId);
    }
  }

  /**
   * Tables nobody sits at expire after `ttlMs` waiting (no match, no money): a developer's
   * forgotten tables do not crowd the lobby or come back at every restart.
   */
  async expireIdle(ttlMs: number): Promise<number> {
    const cutoff = this.deps.clock.now() - ttlMs;
    let expired = 0;
    for (const entry of this.deps.held.all()) {
      const { table } = entry;
      // A pair expires as one, from its copy 1.
      if (table.twin?.copy === 2 || table.status !== "waiting" || table.seats.size > 0 || table.reserved.size > 0 || table.createdAt.getTime() > cutoff) continue;
      const pair = table.twin ? this.deps.held.pairOf(entry) : { queue: entry, tables: [table] };
      if (await serially(pair.queue, () => expireEmptyTables(this.deps.seating, pair.tables))) expired += pair.tables.length;
    }
    return expired;
  }

  /** A table held here; else the refusal a command about it gets (unknown, ended, or on another process). */
  private async entry(tableId: string, refusal: "TABLE_NOT_JOINABLE" | "TABLE_NOT_WAITING" = "TABLE_NOT_JOINABLE"): Promise<HeldTable> {
    const entry = this.deps.held.get(tableId);
    if (entry) return entry;
    const [row] = await this.deps.db.select({ status: tables.status, hostId: tables.hostId }).from(tables).where(eq(tables.id, tableId));
    if (!row) throw errors.notFound("Table");
    if (row.status !== "waiting" && row.status !== "running") throw errors.conflict(refusal, `The table is ${row.status}`);
    // Ours in the database, not yet here: this node has just claimed it (a takeover) and is resuming it.
    if (row.hostId === this.deps.hostId) throw new AppError(503, "TABLE_HOST_UNAVAILABLE", "This node is taking the table over: retry", { tableId }, { "Retry-After": "1" });
    throw errors.conflict(refusal, "This table is hosted by another server process", { hostId: row.hostId });
  }
}

/** Joins and leaves of one table run one at a time (the database guards across processes). */
function serially<T>(entry: { queue: Promise<unknown> }, work: () => Promise<T>): Promise<T> {
  const result = entry.queue.then(work, work);
  entry.queue = result.catch(() => undefined);
  return result;
}
