import { sql } from "drizzle-orm";
import type { TableConfig } from "@poker-bots/protocol";
import { queryRows, type Queryable } from "../../db";
import { invariantViolated } from "../../lib/assert";

// Readers take a table's config through src/db/table-config.ts; this module writes the rows.

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
