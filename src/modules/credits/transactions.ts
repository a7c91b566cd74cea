import { eq } from "drizzle-orm";
import type { Db } from "../../db";
import { transactions } from "../../db/schema";
import { descending, idCursor, keysetPage, PAGE, type Page } from "../../lib/paging";

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

/** Newest first, ties by id (transactions_developer_order_idx). */
const ORDER = [descending(transactions.createdAt), descending(transactions.id)];

/** A developer's transactions, newest first (ties broken by id), `before` a transactionId cursor. */
export async function listTransactions(
  db: Db,
  developerId: string,
  page: { limit?: number; before?: string },
): Promise<Page<TransactionView>> {
  const mine = eq(transactions.developerId, developerId);
  const after = await idCursor(db, transactions, ORDER, { id: page.before, within: mine, field: "before", unknown: "Unknown transaction cursor" });
  const found = await keysetPage(db.select().from(transactions).$dynamic(), { where: mine, order: ORDER, limit: page.limit ?? PAGE.default, after }, (last) => last.id);
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
