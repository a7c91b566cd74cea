/**
 * Migration 0028 (issue 35): a ledger row's id is derived from its key (`transaction_id(seq,
 * created_at)`) instead of stored, and the key becomes the sequence. On a database with rows
 * written before: their ids, their order and every cursor answer the same; rows written since store
 * no id, answer a derived one that decodes to their key, and page together with the old ones.
 */
import { describe, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "../../src/db";
import * as schema from "../../src/db/schema";
import { auditLedger } from "../../src/modules/credits/audit";
import { claimFaucetInDb } from "../../src/modules/credits/ledger";
import { sequenceOfTransactionId } from "../../src/modules/credits/transaction-id";
import { listTransactions, type TransactionView } from "../../src/modules/credits/transactions";
import { AppError } from "../../src/lib/errors";
import { digitsValue } from "../../src/lib/ids";
import { migrateToLatest, withDatabaseMigratedUpTo } from "../support/migrations";

const AT = Date.UTC(2026, 10, 20, 12);
/** Old-shape ids (10 time digits, 16 random): three faucet grants, the last two in one millisecond. */
const OLD = [
  { id: "tx_01kdvdna00aaaaaaaaaaaaaaaa", amount: 1000, balanceAfter: 1000, at: AT },
  { id: "tx_01kdvdna01zzzzzzzzzzzzzzzz", amount: 1000, balanceAfter: 2000, at: AT + 5 },
  { id: "tx_01kdvdna01bbbbbbbbbbbbbbbb", amount: 1000, balanceAfter: 3000, at: AT + 5 },
];

/** Every row of the developer's list, one page of `limit` at a time through the cursors. */
async function wholeList(db: Db, developerId: string, limit: number): Promise<{ items: TransactionView[]; pages: number }> {
  const items: TransactionView[] = [];
  let before: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await listTransactions(db, developerId, { limit, before });
    pages++;
    items.push(...page.items);
    if (page.next === null) return { items, pages };
    before = page.next;
  }
}

describe("migration 0028 on a ledger written before it", () => {
  test("old ids, order and cursors read the same; new rows store no id, answer one derived from their key, and page after the old", async () => {
    await withDatabaseMigratedUpTo("migration_0028", "0027_z", async (client) => {
      await client`insert into developers (id, email, password_hash, balance, created_at) values ('dev_x', 'x@example.com', 'x', 3000, now()), ('dev_y', 'y@example.com', 'x', 0, now())`;
      for (const row of OLD) {
        await client`insert into transactions (id, developer_id, type, amount, balance_after, created_at)
          values (${row.id}, 'dev_x', 'faucet', ${row.amount}, ${row.balanceAfter}, ${new Date(row.at).toISOString()}::timestamptz)`;
      }
      const db = drizzle(client, { schema }) as unknown as Db;
      // The list as the version before answered it: newest first, a millisecond's tie by id descending.
      const listed = await client<{ id: string; amount: string; balance_after: string; ms: string }[]>`
        select id, amount, balance_after, (extract(epoch from created_at) * 1000)::bigint::text as ms from transactions where developer_id = 'dev_x' order by created_at desc, id desc`;
      const before = listed.map((row) => ({
        transactionId: row.id, type: "faucet" as const, amount: Number(row.amount), balanceAfter: Number(row.balance_after),
        botId: null, tableId: null, matchId: null, createdAt: new Date(Number(row.ms)).toISOString(),
      }));
      expect(before.map((t) => t.transactionId)).toEqual([OLD[1].id, OLD[2].id, OLD[0].id]);

      await migrateToLatest(client);

      expect(await wholeList(db, "dev_x", 1)).toEqual({ items: before, pages: 3 });
      expect(await wholeList(db, "dev_x", 2)).toEqual({ items: before, pages: 2 });

      // Two grants written now, in one millisecond: no id stored, the key is the sequence.
      const now = new Date(AT + 60_000);
      for (let i = 0; i < 2; i++) expect((await claimFaucetInDb(db, "dev_x", 500, 0, now)).granted).toBe(true);
      const stored = await client<{ seq: string; id: string | null }[]>`select seq::text, id from transactions where created_at = ${now.toISOString()}::timestamptz order by seq`;
      expect(stored.map((row) => row.id)).toEqual([null, null]);

      const after = await wholeList(db, "dev_x", 1);
      expect(after.pages).toBe(5);
      expect(after.items.slice(2)).toEqual(before);
      const fresh = after.items.slice(0, 2);
      // Their ids: "tx_", the 10 digits of their millisecond, their sequence in 12; ties newest (higher sequence) first.
      expect(fresh.map((t) => sequenceOfTransactionId(t.transactionId))).toEqual(stored.map((row) => Number(row.seq)).reverse());
      for (const t of fresh) {
        expect(t.transactionId).toMatch(/^tx_[0-9a-hjkmnp-tv-z]{22}$/);
        expect(digitsValue(t.transactionId.slice(3, 13))).toBe(now.getTime());
        expect(t).toMatchObject({ type: "faucet", amount: 500, createdAt: now.toISOString() });
      }
      expect(fresh.map((t) => t.balanceAfter)).toEqual([4000, 3500]);
      // A derived id with another millisecond's digits names no row, nor does one of another developer's rows.
      const forged = `tx_${"0".repeat(10)}${fresh[0].transactionId.slice(13)}`;
      expect(sequenceOfTransactionId(forged)).toBe(sequenceOfTransactionId(fresh[0].transactionId));
      for (const [developerId, cursor] of [["dev_x", forged], ["dev_y", fresh[0].transactionId], ["dev_y", OLD[0].id]]) {
        const refused = await listTransactions(db, developerId, { before: cursor }).then(() => null, (error: unknown) => error);
        expect(refused).toBeInstanceOf(AppError);
        expect((refused as AppError).status).toBe(400);
      }

      const audit = await auditLedger(db);
      expect(audit.problems).toEqual([]);
      expect(audit).toMatchObject({ ok: true, transactions: 5, faucetGrants: 4000, totalBalances: 4000 });
    });
  });
});
