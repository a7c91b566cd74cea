import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db";
import { tables } from "../../db/schema";
import { invariant } from "../../lib/assert";
import { AppError, errors } from "../../lib/errors";
import { FencedError, type FenceToken } from "../cluster/lease";
import { markSeatLeaving } from "./seat-rows";
import type { BotRecord } from "../bots/service";
import type { Accounts } from "../credits/service";
import type { BotGateway } from "../protocol/gateway";
import { assertCashout, chipsOnTable, freePosition, newSeatRuntime, type SeatRuntime, type TableRuntime } from "./runtime";
import type { TableEvent } from "./table-machine";
import { refuseIfPrivate, seatView, type ClosedTable, type LeaveResult, type SeatView } from "./views";

/**
 * What changes who sits at a hosted table: joins, leaves, and closing a waiting table. The host
 * runs them one at a time per table; the database guards them across processes.
 */
export interface Seating {
  db: Db;
  accounts: Accounts;
  gateway: BotGateway;
  hostId: string;
  initialTimeBankMs: number;
  /** Which table each bot sits at, on this host. */
  tableOfBot: Map<string, string>;
  fence(): FenceToken | null;
  /** The table's lifecycle (table-machine.ts) hears what happened to it: a seat change, or its end while waiting. */
  tell(table: TableRuntime, event: TableEvent): void;
}

/** Seats a bot (a built-in, a remote bot, or a hosted one: none needs a connection to sit). A duplicate pair's tables seat through twin-seating.ts. */
export async function seatBot(seating: Seating, table: TableRuntime, developerId: string, bot: BotRecord): Promise<SeatView> {
  const { botId } = bot;
  const { tableId } = table;
  invariant(table.twin === null, `table ${tableId} is a copy of a duplicate pair: its seats are taken in pairs`);
  if (table.createdBy !== developerId) refuseIfPrivate(table.config);
  if (seating.tableOfBot.has(botId)) throw errors.conflict("BOT_ALREADY_SEATED", "This bot already sits at a table", { tableId: seating.tableOfBot.get(botId) });
  const position = freePosition(table);
  if (position === null) throw errors.conflict("TABLE_FULL", "Every seat at this table is taken");
  if (table.status !== "waiting") throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${table.status}`);
  table.hold(position);
  try {
    const bought = await seating.accounts.buyIn(developerId, table.config.buyIn, { botId, tableId, position, fence: seating.fence() });
    const seat = newSeatRuntime({
      seatId: bought.seatId,
      position,
      botId,
      developerId,
      strategy: bot.strategy,
      buyIn: table.config.buyIn,
      chips: table.config.buyIn,
      timeBankMs: seating.initialTimeBankMs,
    });
    table.seat(seat);
    // Chips in seats + balances = grants: the ledger debited exactly the table's buy-in, so the
    // seat holds exactly that (more would be chips from nowhere); and nothing is played at a
    // waiting table, so it holds one buy-in per seat.
    invariant(
      seat.chips === table.config.buyIn && chipsOnTable(table) === table.seats.size * table.config.buyIn,
      `table ${tableId}: seat ${seat.seatId} holds ${seat.chips} chips for a buy-in of ${table.config.buyIn}`,
    );
    seating.tableOfBot.set(botId, tableId);
    seating.tell(table, { type: "SEATS_CHANGED" });
    return seatView(seat);
  } finally {
    table.release(position);
  }
}

export async function unseatBot(seating: Seating, table: TableRuntime, developerId: string, botId: string): Promise<LeaveResult> {
  const { tableId } = table;
  const seat = [...table.seats.values()].find((s) => s.botId === botId);
  if (!seat) throw errors.notFound("Seat of this bot at this table");
  if (table.status === "running") {
    if (!seat.leaving) {
      await markSeatLeaving(seating.db, seat.seatId, tableId, seating.fence()).catch((error) => {
        if (error instanceof FencedError) throw hostUnavailable();
        throw error;
      });
    }
    table.markLeaving(seat);
    // An open request is answered for it now (fold or check), not at its deadline.
    seating.gateway.cancel(botId);
    return { tableId, botId, status: "leaving" as const, cashout: null };
  }
  if (table.status !== "waiting") throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${table.status}`);
  await seating.accounts.cashout(developerId, seat.seatId, waitingCashout(table, seat), { botId, tableId, fence: seating.fence() });
  table.unseat(seat.position);
  seating.tableOfBot.delete(botId);
  return { tableId, botId, status: "left" as const, cashout: seat.chips };
}

/** DELETE /api/tables/:tableId at the host: the creator closes a waiting table; every seat is cashed out as a leave. */
export async function closeWaitingTable(seating: Seating, table: TableRuntime, developerId: string): Promise<ClosedTable> {
  const { tableId } = table;
  if (table.createdBy !== developerId) throw errors.forbidden("Only the table's creator may delete it");
  if (table.status !== "waiting") throw errors.conflict("TABLE_NOT_WAITING", `The table is ${table.status}: only a waiting table can be deleted`, { status: table.status });
  // Seats first, the table last: a crash in between leaves a waiting table with fewer seats (resumed), never a closed table with open seats.
  const refunds: ClosedTable["refunds"] = [];
  for (const seat of [...table.seats.values()]) {
    await seating.accounts.cashout(seat.developerId, seat.seatId, waitingCashout(table, seat), { botId: seat.botId, tableId, fence: seating.fence() });
    table.unseat(seat.position);
    seating.tableOfBot.delete(seat.botId);
    refunds.push({ botId: seat.botId, cashout: seat.chips });
  }
  if (!(await endWaitingTables(seating, [table], "closed"))) throw hostUnavailable();
  return { tableId, status: "closed" as const, refunds };
}

/** Waiting tables nobody sits at (a table, or both copies of a pair), past their time: aborted (no money moves). */
export async function expireEmptyTables(seating: Seating, empty: TableRuntime[]): Promise<boolean> {
  if (empty.some((table) => table.status !== "waiting" || table.seats.size > 0 || table.reserved.size > 0)) return false;
  return endWaitingTables(seating, empty, "aborted");
}

/**
 * Ends waiting tables this host still holds, in one statement (both copies of a pair, or one
 * table): false when not all are so in the database, and then nothing changed.
 */
export async function endWaitingTables(seating: Seating, ending: TableRuntime[], status: "closed" | "aborted"): Promise<boolean> {
  const ended = await seating.db.transaction(async (tx) => {
    const rows = await tx
      .update(tables)
      .set({ status })
      .where(and(inArray(tables.id, ending.map((t) => t.tableId)), eq(tables.status, "waiting"), eq(tables.hostId, seating.hostId)))
      .returning({ id: tables.id });
    // All or none: a pair never ends one copy alone (rolled back by the throw).
    if (rows.length !== ending.length) throw new PartialEnd();
    return true;
  }).catch((error) => {
    if (error instanceof PartialEnd) return false;
    throw error;
  });
  if (!ended) return false;
  // The machine ends each table (its status follows), and the host lets it go.
  for (const table of ending) seating.tell(table, { type: status === "closed" ? "CLOSED" : "EXPIRED" });
  return true;
}

class PartialEnd extends Error {}

/**
 * What a seat of a waiting table is paid as it leaves: its buy-in. Nothing was played, so a seat
 * holding anything else would create or destroy chips (chips in seats + balances = grants).
 */
export function waitingCashout(table: TableRuntime, seat: SeatRuntime): number {
  invariant(seat.chips === seat.buyIn, `table ${table.tableId}: seat ${seat.seatId} of a waiting table holds ${seat.chips} chips, not its buy-in ${seat.buyIn}`);
  assertCashout(table, seat);
  return seat.chips;
}

export function hostUnavailable(): AppError {
  return new AppError(503, "TABLE_HOST_UNAVAILABLE", "This node no longer hosts the table: retry", undefined, { "Retry-After": "2" });
}
