import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db";
import { seats, transactions } from "../../db/schema";
import { descending, idCursor, keysetPage, PAGE, type Page } from "../../lib/paging";
import { transactionIdColumn, transactionNamed } from "./transaction-id";

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

/** Newest first, ties by id (transactions_developer_order_idx, then a sort of one millisecond's rows). */
const ORDER = [descending(transactions.createdAt), descending(transactionIdColumn)];

/**
 * A row's columns, its bot and table read through its seat: a buy-in or cashout row stores only
 * the seat (seat-statements.ts); rows written before it (issue 35) still hold their own, the same.
 */
const COLUMNS = {
  id: transactionIdColumn,
  type: transactions.type,
  amount: transactions.amount,
  balanceAfter: transactions.balanceAfter,
  botId: sql<string | null>`coalesce(${transactions.botId}, ${seats.botId})`,
  tableId: sql<string | null>`coalesce(${transactions.tableId}, ${seats.tableId})`,
  matchId: transactions.matchId,
  createdAt: transactions.createdAt,
};

/** A developer's transactions, newest first (ties broken by id), `before` a transactionId cursor. */
export async function listTransactions(
  db: Db,
  developerId: string,
  page: { limit?: number; before?: string },
): Promise<Page<TransactionView>> {
  const mine = eq(transactions.developerId, developerId);
  const after = await idCursor(db, transactions, ORDER, { id: page.before, within: mine, field: "before", unknown: "Unknown transaction cursor", named: transactionNamed });
  const found = await keysetPage(db.select(COLUMNS).from(transactions).leftJoin(seats, eq(seats.seq, transactions.seatSeq)).$dynamic(), { where: mine, order: ORDER, limit: page.limit ?? PAGE.default, after }, (last) => last.id);
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

