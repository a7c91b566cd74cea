import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../db";
import { tables } from "../../db/schema";
import { errors } from "../../lib/errors";
import { PAGE, pageOf, pastCursor, type Page } from "../../lib/paging";

export type TableRow = typeof tables.$inferSelect;

/** The lobby's rows: waiting and running tables, newest first (ties by id); `before` a tableId cursor; `ladderOnly`: the ladder's tables alone (the /ladder page). */
export async function lobbyRows(db: Db, page: { limit?: number; before?: string; ladderOnly?: boolean }): Promise<Page<TableRow>> {
  const limit = page.limit ?? PAGE.default;
  const conditions = [inArray(tables.status, ["waiting", "running"])];
  if (page.ladderOnly) conditions.push(isNotNull(tables.ladder));
  if (page.before !== undefined) {
    const [cursor] = await db.select({ createdAt: tables.createdAt, id: tables.id }).from(tables).where(eq(tables.id, page.before));
    if (!cursor) throw errors.validation("Unknown table cursor", { field: "before" });
    conditions.push(pastCursor(tables.createdAt, tables.id, { at: cursor.createdAt, id: cursor.id }, "desc"));
  }
  const rows = await db
    .select()
    .from(tables)
    .where(and(...conditions))
    .orderBy(desc(tables.createdAt), desc(tables.id))
    .limit(limit + 1);
  return pageOf(rows, limit, (last) => last.id);
}
