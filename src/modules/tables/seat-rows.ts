import { and, eq, sql } from "drizzle-orm";
import { anyOf, queryRows, type Queryable } from "../../db";
import { retryTransient, type RetryOptions } from "../../db/retry";
import { seats } from "../../db/schema";
import { SEAT_COLUMNS, seatDeveloperOf } from "../../db/seat-developer";
import { FencedError, leaseHolds, type FenceToken } from "../cluster/lease";
import { seatLedger, type SeatRowsSql } from "../credits/ledger";

const placeholder = sql.placeholder;

/**
 * A table's seat rows are the table module's: it opens and closes them. The ledger (credits/)
 * supplies only the guarded debit and credit with their ledger rows, and runs this SQL inside the
 * same statement, so a seat and its money move together, under the same lease fence.
 */
export const SEAT_ROWS: SeatRowsSql = {
  // A seat the unique indexes refuse (the position taken, the bot seated) is simply not inserted: the buy_in row then has no seat and the statement fails.
  open: sql`insert into seats (developer_id, bot_id, table_id, position, buy_in, chips, status, opened_at, copy)
      select case when not exists (select 1 from bots b where b.id = ${placeholder("botId")}::text and b.developer_id = ${placeholder("developerId")}) then ${placeholder("developerId")}::text end,
             ${placeholder("botId")}::text, ${placeholder("tableId")}::text, ${placeholder("position")}::int,
             ${placeholder("amount")}::bigint, ${placeholder("amount")}::bigint, 'open', ${placeholder("at")}::timestamptz, ${placeholder("copy")}::smallint
      from debited
      on conflict do nothing returning seq`,
  close: (fenceHolds) => sql`update seats set status = 'closed', chips = 0, cashout = ${placeholder("chips")}::bigint, closed_at = ${placeholder("at")}::timestamptz
      where seq = ${placeholder("seatId")}::bigint and ${seatDeveloperOf("seats")} = ${placeholder("developerId")} and status = 'open' and ${fenceHolds} returning seq`,
};

/** Buy-ins and cashouts of seats: the ledger's guarded statements around the seat rows above (what Accounts and the match's writes use). */
export const SEAT_LEDGER = seatLedger(SEAT_ROWS);

/** The open seats of these tables (tables hosted elsewhere: their stored seats). */
export async function openSeatsOf(db: Queryable, tableIds: string[]) {
  if (tableIds.length === 0) return [];
  return db.select(SEAT_COLUMNS).from(seats).where(and(anyOf(seats.tableId, tableIds), eq(seats.status, "open")));
}

/**
 * A leave asked for mid-match, written before it is answered "leaving": a node that takes the
 * table over reads it back (resume.ts), so an acknowledged leave survives any failover.
 */
export async function markSeatLeaving(db: Queryable, seatId: number, tableId: string, fence: FenceToken | null, retry: RetryOptions = {}): Promise<void> {
  const marked = await retryTransient(
    () =>
      queryRows(db, sql`update seats set leaving = true where seq = ${seatId} and status = 'open' and ${leaseHolds(fence, tableId)} returning 1`),
    retry,
  );
  if (marked.length > 0 || !fence) return;
  // No row: the seat was just cashed out (its match ended, or it busted, a moment ago), or the table is another node's now.
  const [seat] = await queryRows<{ status: string }>(db, sql`select status from seats where seq = ${seatId}`);
  if (seat?.status === "open") throw new FencedError(fence);
}
