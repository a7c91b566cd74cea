-- Issue 35, a match's own rows: a seat is internal (no route names one), so its key becomes a
-- bigint sequence instead of a 26-byte text id, and its ledger rows name it by that key
-- (transactions.seat_seq) instead of the text (~26 bytes a seat in the heap, ~35 in the key, ~24
-- in each of its two ledger rows; 2 seats a heads-up match, 6 a six-max one).
--
-- Every seat gets its number here (the new column rewrites `seats`), and every buy-in and
-- cashout row its seat's number (an UPDATE of each such ledger row; the text it held is
-- cleared, the same text stays on the seat: seats.id, unread). After this, nothing reads
-- transactions.seat_id or seats.id: one path for every row, old or new.
--
-- Size: measured 23 s for 500,000 seats and their million ledger rows on a 2-core machine (the
-- rewrite of `seats`, a scan and UPDATE of `transactions`, the key's index, the check), growing
-- with the rows; both tables are locked meanwhile, reads included: plan the downtime (every node is
-- stopped for this migration anyway, below). The UPDATE leaves the ledger rows' old versions behind:
-- `transactions` takes their space again as it grows once vacuum has run, or VACUUM FULL (or
-- pg_repack) gives it back at once.
-- Rolling deploy: nodes of the version before name seats by their text id, which seats opened
-- since do not have: replace every node.
ALTER TABLE "seats" ADD COLUMN IF NOT EXISTS "seq" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN IF NOT EXISTS "seat_seq" bigint;--> statement-breakpoint
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_buy_in_has_seat";--> statement-breakpoint
UPDATE "transactions" AS t SET "seat_seq" = s."seq", "seat_id" = NULL FROM "seats" AS s WHERE s."id" = t."seat_id" AND t."seat_seq" IS NULL;--> statement-breakpoint
ALTER TABLE "seats" DROP CONSTRAINT "seats_pkey", ADD CONSTRAINT "seats_pkey" PRIMARY KEY ("seq");--> statement-breakpoint
ALTER TABLE "seats" ALTER COLUMN "id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_buy_in_has_seat" CHECK ("transactions"."type" <> 'buy_in' or "transactions"."seat_seq" is not null);
