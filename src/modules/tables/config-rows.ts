import { getTableColumns, sql } from "drizzle-orm";
import type { TableConfig } from "@poker-bots/protocol";
import { queryRows, type Queryable } from "../../db";
import { tableConfigs, tables } from "../../db/schema";
import { invariantViolated } from "../../lib/assert";

/**
 * A table's config, however its row stores it: tables made since migration 0029 name a shared
 * row of table_configs (issue 35: ~160 bytes a table, and the ladder's tables share a handful of
 * configs); tables made before hold their own copy.
 */
export const tableConfigColumn = sql<TableConfig>`coalesce(${tables.config}, (select ${tableConfigs.config} from ${tableConfigs} where ${tableConfigs.id} = ${tables.configId}))`;

/** The same in raw SQL, for a `tables` row aliased `alias`. */
export const tableConfigOf = (alias: string) => sql.raw(`coalesce(${alias}.config, (select c.config from table_configs c where c.id = ${alias}.config_id))`);

/** A table's row with its config (select, update … returning): what every reader of a whole row gets. */
export const TABLE_COLUMNS = { ...getTableColumns(tables), config: tableConfigColumn };

export type TableRow = Omit<typeof tables.$inferSelect, "config"> & { config: TableConfig };

/**
 * The table_configs row of a config, added the first time it is seen. Configs compare as jsonb
 * (key order does not matter). Each service instance keeps the ids it has seen (rows are never
 * changed or removed), so a ladder making thousands of tables a minute asks once per config.
 */
export class TableConfigIds {
  private readonly known = new Map<string, number>();

  constructor(private readonly db: Queryable) {}

  async of(config: TableConfig): Promise<number> {
    const key = JSON.stringify(config);
    const cached = this.known.get(key);
    if (cached !== undefined) return cached;
    // Two nodes adding one new config at once: the loser's insert returns nothing and its snapshot
    // cannot see the winner's row, so it asks again (a new statement sees the committed row).
    for (let attempt = 0; attempt < 2; attempt++) {
      const [row] = await queryRows<{ id: number }>(
        this.db,
        sql`with found as (select id from table_configs where config = ${key}::jsonb),
          added as (insert into table_configs (config) select ${key}::jsonb where not exists (select 1 from found) on conflict (config) do nothing returning id)
          select id from found union all select id from added`,
      );
      if (row) {
        this.known.set(key, row.id);
        return row.id;
      }
    }
    invariantViolated("a config's row is found or added within two statements");
  }
}
