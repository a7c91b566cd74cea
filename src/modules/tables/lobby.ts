import { and, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../db";
import { tables } from "../../db/schema";
import { descending, idCursor, keysetPage, PAGE, type Page } from "../../lib/paging";
import { TABLE_COLUMNS, type TableRow } from "../../db/table-config";


/** Newest first, ties by id. */
const ORDER = [descending(tables.createdAt), descending(tables.id)];

/** The lobby's rows: waiting and running tables, newest first (ties by id); `before` a tableId cursor; `ladderOnly`: the ladder's tables alone (the /ladder page). */
export async function lobbyRows(db: Db, page: { limit?: number; before?: string; ladderOnly?: boolean }): Promise<Page<TableRow>> {
  const after = await idCursor(db, tables, ORDER, { id: page.before, field: "before", unknown: "Unknown table cursor" });
  const live = inArray(tables.status, ["waiting", "running"]);
  const where = page.ladderOnly ? and(live, isNotNull(tables.ladder)) : live;
  return keysetPage(db.select(TABLE_COLUMNS).from(tables).$dynamic(), { where, order: ORDER, limit: page.limit ?? PAGE.default, after }, (last) => last.id);
}
