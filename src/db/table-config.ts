import { getTableColumns, sql } from "drizzle-orm";
import type { TableConfig } from "@poker-bots/protocol";
import { tables } from "./schema";

/**
 * A table's config, however its row stores it: tables made since migration 0029 name a shared
 * row of table_configs (issue 35: ~160 bytes a table; the ladder's tables share a handful of
 * configs), tables made before hold their own copy. Every reader of a table's config goes through
 * here; only the tables module writes them (tables/config-rows.ts).
 */
export const tableConfigOf = (alias: string) => sql.raw(`coalesce(${alias}.config, (select c.config from table_configs c where c.id = ${alias}.config_id))`);

/** The same for drizzle's queries, which name the table itself (`tables`, unaliased). */
export const tableConfigColumn = sql<TableConfig>`${tableConfigOf("tables")}`;

/** A table's row with its config (select, update … returning): what every reader of a whole row gets. */
export const TABLE_COLUMNS = { ...getTableColumns(tables), config: tableConfigColumn };

export type TableRow = Omit<typeof tables.$inferSelect, "config"> & { config: TableConfig };
