import { sql } from "drizzle-orm";
import { transactions } from "../../db/schema";
import { digitsValue } from "../../lib/ids";

/**
 * A ledger row's id: the id it stores (rows written before migration 0028), else the one derived
 * from its key by the migration's `transaction_id(seq, created_at)`: "tx_", the 10 digits of its
 * millisecond, its sequence in 12 (issue 35: no id stored, and the key a bigint).
 */
export const transactionIdOf = (alias: string) => sql.raw(`coalesce(${alias}.id, transaction_id(${alias}.seq, ${alias}.created_at))`);

/** The same for drizzle's queries, which name the table itself (`transactions`, unaliased). */
export const transactionIdColumn = sql<string>`${transactionIdOf("transactions")}`;

const DERIVED = /^tx_[0-9a-hjkmnp-tv-z]{10}([0-9a-hjkmnp-tv-z]{12})$/;

/**
 * The sequence a derived id names, to find its row by key; null for any other shape (a stored id).
 * The caller still compares the whole id: the time digits must be the row's.
 */
export function sequenceOfTransactionId(id: string): number | null {
  const digits = DERIVED.exec(id)?.[1];
  if (digits === undefined) return null;
  const seq = digitsValue(digits);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}

/**
 * The row a transactionId names, in SQL: by its stored id, or by its key when the id is derived
 * (a partial unique index and the primary key: one probe each, never a scan).
 */
export function transactionNamed(id: string) {
  const seq = sequenceOfTransactionId(id);
  if (seq === null) return sql`${transactions.id} = ${id}`;
  return sql`(${transactions.id} = ${id} or (${transactions.seq} = ${seq} and ${transactions.id} is null and ${transactionIdColumn} = ${id}))`;
}
