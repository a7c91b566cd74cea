-- A seat's ledger rows (its buy-in, its cashout) found by seat: an operator's look-up and joins from
-- seats. `bun run audit` does not depend on it (it reads the ledger set-based, bench:audit), so
-- the build may take its time: drizzle runs migrations in one transaction, where CONCURRENTLY is
-- refused; on a ledger of a million rows it holds writes to `transactions` for about 1.3 s (measured here).
CREATE INDEX "transactions_seat_idx" ON "transactions" USING btree ("seat_id") WHERE "transactions"."seat_id" is not null;
