import { eq, getTableColumns } from "drizzle-orm";
import type { Queryable } from "../../db";
import { matches, tables } from "../../db/schema";

/**
 * A match's row with its config, read from its table: one match a table, and a table's config never
 * changes, so the match keeps no copy of it (issue 35: ~160 bytes a match). Rows written before
 * still hold theirs (the same), unread.
 */
export const MATCH_COLUMNS = { ...getTableColumns(matches), config: tables.config };

/** Matches with their config (add a where): a join on the table's primary key. */
export const selectMatches = (db: Queryable) => db.select(MATCH_COLUMNS).from(matches).innerJoin(tables, eq(tables.id, matches.tableId));

export type MatchRow = Awaited<ReturnType<typeof selectMatches>>[number];
