-- Issue 35, a match's own rows: the ledger is no longer indexed by seat (~38 bytes a buy-in or
-- cashout row, 4 rows a heads-up match). Nothing the service runs looks ledger rows up by seat: a
-- row reaches its seat through seats' key (GET /api/me/transactions), and `bun run audit` checks
-- every seat's rows by joining both tables whole, by hash (bench:audit, a million rows and 500,000
-- seats: 1.4 s before, 2.0 s without the index: a price the audit pays, not a match). An
-- operator's look-up of one seat's rows now reads its developer's rows
-- (transactions_developer_order_idx) and filters them. Dropping an index is a catalog change.
DROP INDEX "transactions_seat_idx";
