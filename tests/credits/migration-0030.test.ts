/**
 * Migration 0030 (issue 35): a seat's key becomes a bigint sequence (seats.seq) instead of its text
 * id, and its ledger rows name it by that key (transactions.seat_seq). On a database with seats and
 * ledger rows written before: every seat gets a number, every buy-in and cashout row its seat's
 * number (the text it held cleared), the developer's ledger reads the same (bot and table through
 * the seat), the audit holds, and a seat still open at the upgrade is cashed out by its number.
 */
import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "../../src/db";
import * as schema from "../../src/db/schema";
import { auditLedger } from "../../src/modules/credits/audit";
import { listTransactions } from "../../src/modules/credits/transactions";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
import { migrateToLatest, withDatabaseMigratedUpTo } from "../support/migrations";

const AT = Date.UTC(2026, 10, 20, 12);
const at = (ms: number) => new Date(AT + ms).toISOString();

/** Two developers' ledgers as the version before wrote them: grants, a seat played out (buy-in, cashout), a seat still open. */
async function seedBefore(client: postgres.Sql): Promise<void> {
  await client`insert into developers (id, email, password_hash, balance, created_at)
    values ('dev_x', 'x@example.com', 'x', 3500, now()), ('dev_y', 'y@example.com', 'x', 4500, now())`;
  await client`insert into seats (id, developer_id, bot_id, table_id, position, buy_in, chips, status, cashout, opened_at, closed_at) values
    ('seat_01kdvdna00aaaaaaaaaa', 'dev_x', 'bot_x', 'tbl_a', 0, 1000, 0, 'closed', 500, ${at(1)}::timestamptz, ${at(3)}::timestamptz),
    ('seat_01kdvdna00bbbbbbbbbb', 'dev_y', 'bot_y', 'tbl_a', 1, 1000, 0, 'closed', 1500, ${at(1)}::timestamptz, ${at(3)}::timestamptz),
    ('seat_01kdvdna00cccccccccc', 'dev_x', 'bot_x', 'tbl_b', 0, 1000, 1000, 'open', null, ${at(4)}::timestamptz, null)`;
  const rows: Array<[string, string, string, number, number, string | null, string | null, number]> = [
    ["tx_x1", "dev_x", "faucet", 5000, 5000, null, null, 0],
    ["tx_y1", "dev_y", "faucet", 4000, 4000, null, null, 0],
    ["tx_x2", "dev_x", "buy_in", -1000, 4000, "seat_01kdvdna00aaaaaaaaaa", null, 1],
    ["tx_y2", "dev_y", "buy_in", -1000, 3000, "seat_01kdvdna00bbbbbbbbbb", null, 1],
    ["tx_x3", "dev_x", "cashout", 500, 4500, "seat_01kdvdna00aaaaaaaaaa", "m_a", 3],
    ["tx_y3", "dev_y", "cashout", 1500, 4500, "seat_01kdvdna00bbbbbbbbbb", "m_a", 3],
    ["tx_x4", "dev_x", "buy_in", -1000, 3500, "seat_01kdvdna00cccccccccc", null, 4],
  ];
  for (const [id, developer, type, amount, balanceAfter, seat, match, ms] of rows) {
    await client`insert into transactions (id, developer_id, type, amount, balance_after, seat_id, match_id, created_at)
      values (${id}, ${developer}, ${type}, ${amount}, ${balanceAfter}, ${seat}, ${match}, ${at(ms)}::timestamptz)`;
  }
}

describe("migration 0030 on seats and a ledger written before it", () => {
  test("seats and their ledger rows are numbered, the ledger reads the same, the audit holds, an open seat is cashed out by its number", async () => {
    await withDatabaseMigratedUpTo("migration_0030", "0029_z", async (client) => {
      await seedBefore(client);
      const db = drizzle(client, { schema }) as unknown as Db;
      // The ledger as the version before answered it: bot and table read through the seat's text id.
      const before = await client`select t.id, t.type, t.amount::int as amount, s.bot_id, s.table_id, t.match_id
        from transactions t left join seats s on s.id = t.seat_id order by t.developer_id, t.created_at desc, t.id desc`;
      expect(before.filter((row) => row.bot_id !== null)).toHaveLength(5);

      await migrateToLatest(client);

      // Every seat numbered; every seat's row names its number and no text.
      const seatsAfter = await client`select id, seq::int as seq from seats order by id`;
      expect(seatsAfter).toHaveLength(3);
      expect(new Set(seatsAfter.map((row) => row.seq)).size).toBe(3);
      const named = await client`select t.id, s.id as seat from transactions t join seats s on s.seq = t.seat_seq order by t.id`;
      expect(named.map((row) => [row.id, row.seat])).toEqual([
        ["tx_x2", "seat_01kdvdna00aaaaaaaaaa"],
        ["tx_x3", "seat_01kdvdna00aaaaaaaaaa"],
        ["tx_x4", "seat_01kdvdna00cccccccccc"],
        ["tx_y2", "seat_01kdvdna00bbbbbbbbbb"],
        ["tx_y3", "seat_01kdvdna00bbbbbbbbbb"],
      ]);
      expect((await client`select count(*)::int as n from transactions where seat_id is not null`)[0].n).toBe(0);

      // The API's ledger reads what the version before read.
      for (const developer of ["dev_x", "dev_y"]) {
        const listed = (await listTransactions(db, developer, { limit: 50 })).items;
        const expected = before.filter((row) => row.id.startsWith(`tx_${developer.slice(4)}`));
        expect(listed.map((row) => [row.transactionId, row.type, row.amount, row.botId, row.tableId, row.matchId])).toEqual(
          expected.map((row) => [row.id, row.type, row.amount, row.bot_id, row.table_id, row.match_id]),
        );
      }
      expect((await auditLedger(db)).problems).toEqual([]);

      // The seat open at the upgrade: cashed out by its number (as a resumed table does), once.
      const [open] = await client`select seq::int as seq from seats where status = 'open'`;
      const paid = await SEAT_LEDGER.cashoutInDb(db, "dev_x", open.seq, 1000, { botId: "bot_x", tableId: "tbl_b", matchId: null }, new Date(AT + 10));
      expect(paid.balance).toBe(4500);
      await expect(SEAT_LEDGER.cashoutInDb(db, "dev_x", open.seq, 1000, { botId: "bot_x", tableId: "tbl_b" }, new Date(AT + 11))).rejects.toMatchObject({ status: 409 });
      // A new seat: numbered after the old ones, no text id, its buy-in names its number.
      const bought = await SEAT_LEDGER.buyInInDb(db, "dev_y", 700, { botId: "bot_y", tableId: "tbl_c", position: 0 }, new Date(AT + 12));
      expect(bought.seatId).toBeGreaterThan(Math.max(...seatsAfter.map((row) => row.seq)));
      const [fresh] = await client`select id, bot_id, table_id from seats where seq = ${bought.seatId}`;
      expect(fresh).toEqual({ id: null, bot_id: "bot_y", table_id: "tbl_c" });
      const newest = (await listTransactions(db, "dev_y", { limit: 1 })).items[0];
      expect([newest.type, newest.amount, newest.botId, newest.tableId]).toEqual(["buy_in", -700, "bot_y", "tbl_c"]);
      const audit = await auditLedger(db);
      expect(audit.problems).toEqual([]);
      expect(audit).toMatchObject({ ok: true, transactions: 9 });
    });
  });
});
