import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db";
import { transactions } from "../../db/schema";
import { errors } from "../../lib/errors";
import { PAGE, pageOf, pastCursor, type Page } from "../../lib/paging";

export interface TransactionView {
  transactionId: string;
  type: "faucet" | "buy_in" | "cashout";
  amount: number;
  balanceAfter: number;
  botId: string | null;
  tableId: string | null;
  matchId: string | null;
  createdAt: string;
}

/** A developer's transactions, newest first (ties broken by id), `before` a transactionId cursor. */
export async function listTransactions(
  db: Db,
  developerId: string,
  page: { limit?: number; before?: string },
): Promise<Page<TransactionView>> {
  const limit = page.limit ?? PAGE.default;
  const conditions = [eq(transactions.developerId, developerId)];
  if (page.before !== undefined) {
    const cursor = await db
      .select({ createdAt: transactions.createdAt, id: transactions.id })
      .from(transactions)
      .where(and(eq(transactions.id, page.before), eq(transactions.developerId, developerId)));
    if (cursor.length === 0) throw errors.validation("Unknown transaction cursor", { field: "before" });
    const { createdAt, id } = cursor[0];
    conditions.push(pastCursor(transactions.createdAt, transactions.id, { at: createdAt, id }, "desc"));
  }
  const rows = await db
    .select()
    .from(transactions)
    .where(and(...conditions))
    .orderBy(desc(transactions.createdAt), desc(transactions.id))
    .limit(limit + 1);
  const found = pageOf(rows, limit, (last) => last.id);
  const items = found.items.map((row) => ({
    transactionId: row.id,
    type: row.type,
    amount: row.amount,
    balanceAfter: row.balanceAfter,
    botId: row.botId,
    tableId: row.tableId,
    matchId: row.matchId,
    createdAt: row.createdAt.toISOString(),
  }));
  return { items, next: found.next };
}
