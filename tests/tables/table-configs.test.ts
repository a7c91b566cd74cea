/**
 * A table's config stored once per distinct config (issue 35, migration 0029): tables made alike
 * share one table_configs row and store no copy; every reader answers the same config whether the
 * row names a shared one or, made before, holds its own.
 */
import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { tables } from "../../src/db/schema";
import { TableConfigIds } from "../../src/modules/tables/config-rows";
import { rowsOf } from "../campaigns/support";
import { useHarness } from "../support/app";

const h = useHarness("table_configs");

describe("table configs, stored once", () => {
  test("tables made alike share one config row and keep no copy; the API answers each table's config", async () => {
    const alice = await h.fundedDeveloper();
    const [before] = await rowsOf<{ n: number }>(h.database.db, sql`select count(*)::int as n from table_configs`);
    const bodies = [
      { maxPlayers: 2, maxHands: 50, buyIn: 900 },
      { maxPlayers: 2, maxHands: 50, buyIn: 900 },
      { buyIn: 900, maxHands: 50, maxPlayers: 2 },
      { maxPlayers: 3, maxHands: 50, buyIn: 900 },
    ];
    const made: string[] = [];
    for (const body of bodies) {
      const created = await h.call("POST", "/api/tables", { token: alice.token, body });
      expect(created.status).toBe(201);
      made.push(created.body.tableId);
    }
    expect(made).toHaveLength(4);
    const rows = await rowsOf<{ id: string; config: unknown; config_id: number | null }>(
      h.database.db,
      sql`select id, config, config_id from tables where id = any(${sql.param(made)}::text[])`,
    );
    expect(rows.map((row) => row.config)).toEqual([null, null, null, null]);
    const byId = new Map(rows.map((row) => [row.id, row.config_id]));
    expect(byId.get(made[1])).toBe(byId.get(made[0])!);
    expect(byId.get(made[2])).toBe(byId.get(made[0])!);
    expect(byId.get(made[3])).not.toBe(byId.get(made[0])!);
    const [after] = await rowsOf<{ n: number }>(h.database.db, sql`select count(*)::int as n from table_configs`);
    expect(after.n - before.n).toBe(2);
    for (const [i, tableId] of made.entries()) {
      const table = await h.call("GET", `/api/tables/${tableId}`, {});
      expect(table.body.config).toMatchObject({ maxPlayers: bodies[i].maxPlayers, maxHands: 50, buyIn: 900 });
    }
  });

  test("a table made before holds its own copy, and reads the same; a table with neither is refused by the database", async () => {
    const alice = await h.fundedDeveloper();
    const created = await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 4, maxHands: 70, buyIn: 800 } });
    const shared = await h.call("GET", `/api/tables/${created.body.tableId}`, {});
    const id = `tbl_before_${crypto.randomUUID().slice(0, 8)}`;
    const config = { buyIn: 800, smallBlind: 5, bigBlind: 10, maxPlayers: 4, maxHands: 70, actionTimeoutMs: 2000 };
    await h.database.db.insert(tables).values({ id, createdBy: alice.developerId, config, status: "finished", hostId: "elsewhere", createdAt: new Date() });
    const own = await h.call("GET", `/api/tables/${id}`, {});
    expect(own.status).toBe(200);
    expect(own.body.config).toEqual(shared.body.config);
    const refused = await h.database.db
      .insert(tables)
      .values({ id: `${id}_none`, createdBy: alice.developerId, status: "finished", hostId: "elsewhere", createdAt: new Date() })
      .then(() => null, (error: { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code);
    expect(refused).toBe("23514");
  });

  test("two nodes adding one new config at once agree on its row", async () => {
    const config = { buyIn: 777, smallBlind: 1, bigBlind: 2, maxPlayers: 5, maxHands: 33, actionTimeoutMs: 1500 };
    const nodes = [new TableConfigIds(h.database.db), new TableConfigIds(h.database.db)];
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => nodes[i % 2].of(config)));
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(1);
    const [stored] = await rowsOf<{ n: number }>(h.database.db, sql`select count(*)::int as n from table_configs where config = ${JSON.stringify(config)}::jsonb`);
    expect(stored.n).toBe(1);
  });
});
