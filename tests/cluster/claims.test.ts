import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../src/db";
import { acquireLease } from "../../src/modules/cluster/lease";
import { claimOrphanedTables } from "../../src/modules/cluster/takeover";
import { createTestDatabase, type TestDatabase } from "../support/db";

setDefaultTimeout(60_000);

// Two nodes claim a dead node's tables at the same moment, each over its own connection.
let testDb: TestDatabase;
let nodes: Database[];
beforeAll(async () => {
  testDb = await createTestDatabase("claims");
  nodes = [await openDatabase({ databaseUrl: testDb.url }), await openDatabase({ databaseUrl: testDb.url })];
});
afterAll(async () => {
  for (const node of nodes) await node.close();
  await testDb.drop();
});

test("regression (double claim): when two live nodes claim a dead node's tables at once, each table goes to exactly one", async () => {
  const db = nodes[0].db;
  await db.execute(sql`insert into developers (id, email, password_hash, name, balance, created_at) values ('dev_claims', 'c@example.com', 'x', null, 0, now())`);
  await acquireLease(nodes[0].db, "node_x", () => {});
  await acquireLease(nodes[1].db, "node_y", () => {});
  for (let round = 0; round < 15; round++) {
    const dead = `dead_${round}`;
    await db.execute(sql`insert into tables (id, created_by, config, status, host_id, created_at)
      select 'tbl_' || ${dead} || '_' || n, 'dev_claims', '{}'::jsonb, 'waiting', ${dead}, now() from generate_series(1, 30) n`);
    const [x, y] = await Promise.all([claimOrphanedTables(nodes[0].db, "node_x"), claimOrphanedTables(nodes[1].db, "node_y")]);
    const claimedByX = new Set(x.map((row) => row.id));
    expect(y.filter((row) => claimedByX.has(row.id))).toEqual([]);
    expect(x.length + y.length).toBe(30);
  }
});

test("a dead node's duplicate pairs move whole: whichever node claims, it takes both copies of every pair in one round", async () => {
  const db = nodes[0].db;
  let pairs = 0;
  for (let round = 0; round < 10; round++) {
    const dead = `dead_pairs_${round}`;
    // Ten waiting pairs of twin tables on the dead node (copy 1: tbl_…_a, copy 2: tbl_…_b).
    await db.execute(sql`insert into tables (id, created_by, config, status, host_id, created_at, twin_id, copy)
      select 'tbl_' || ${dead} || '_' || n || '_' || c, 'dev_claims', '{"duplicate": true}'::jsonb, 'waiting', ${dead}, now(),
             'tbl_' || ${dead} || '_' || n || '_' || (case c when 'a' then 'b' else 'a' end), (case c when 'a' then 1 else 2 end)
      from generate_series(1, 10) n, (values ('a'), ('b')) as copies(c)`);
    const [x, y] = await Promise.all([claimOrphanedTables(nodes[0].db, "node_x"), claimOrphanedTables(nodes[1].db, "node_y")]);
    expect(x.length + y.length).toBe(20);
    for (const claimed of [x, y]) {
      const ids = new Set(claimed.map((row) => row.id));
      for (const row of claimed) expect(ids.has(row.twinId!)).toBe(true);
      pairs += claimed.length / 2;
    }
  }
  expect(pairs).toBe(100);
});
