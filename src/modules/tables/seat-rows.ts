import { and, eq, sql } from "drizzle-orm";
import { anyOf, queryRows, type Queryable } from "../../db";
import { retryTransient, type RetryOptions } from "../../db/retry";
import { seats } from "../../db/schema";
import { FencedError, leaseHolds, type FenceToken } from "../cluster/lease";

/** A table's seat rows the table module reads and writes itself (the ledger writes only money). */

/** The open seats of these tables (tables hosted elsewhere: their stored seats). */
export async function openSeatsOf(db: Queryable, tableIds: string[]) {
  if (tableIds.length === 0) return [];
  return db.select().from(seats).where(and(anyOf(seats.tableId, tableIds), eq(seats.status, "open")));
}

/**
 * A leave asked for mid-match, written before it is answered "leaving": a node that takes the
 * table over reads it back (resume.ts), so an acknowledged leave survives any failover.
 */
export async function markSeatLeaving(db: Queryable, seatId: string, tableId: string, fence: FenceToken | null, retry: RetryOptions = {}): Promise<void> {
  const marked = await retryTransient(
    () =>
      queryRows(db, sql`update seats set leaving = true where id = ${seatId} and status = 'open' and ${leaseHolds(fence, tableId)} returning 1`),
    retry,
  );
  if (marked.length > 0 || !fence) return;
  // No row: the seat was just cashed out (its match ended, or it busted, a moment ago), or the table is another node's now.
  const [seat] = await queryRows<{ status: string }>(db, sql`select status from seats where id = ${seatId}`);
  if (seat?.status === "open") throw new FencedError(fence);
}
