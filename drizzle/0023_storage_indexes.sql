-- Issue 35, database growth per hand: indexes no query needs, each a few dozen bytes a ledger or
-- rating row (docs/SCALING.md, "Hand storage"). Nothing is rewritten: the ledger's unique index on
-- seq goes (the sequence makes it unique; only the audit reads seq, whole); two indexes are built
-- again smaller (transactions by developer and time, without the id its key holds; tables by
-- status, live tables only); bot_rating_history keeps one index, its new key (bot, rated_seq:
-- unique, each rated match takes its own seq), in place of a key by (bot, match) and two indexes.
-- Building the ledger index holds writes to transactions meanwhile (drizzle runs migrations in one
-- transaction, where CONCURRENTLY is refused): 1.5 s for the whole migration on a ledger of a million rows (bench:audit's, a loaded machine).
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_seq_unique";--> statement-breakpoint
DROP INDEX "bot_rating_history_order_idx";--> statement-breakpoint
DROP INDEX "bot_rating_history_match_idx";--> statement-breakpoint
DROP INDEX "tables_status_idx";--> statement-breakpoint
DROP INDEX "transactions_developer_order_idx";--> statement-breakpoint
ALTER TABLE "bot_rating_history" DROP CONSTRAINT "bot_rating_history_bot_id_match_id_pk";--> statement-breakpoint
ALTER TABLE "bot_rating_history" ADD CONSTRAINT "bot_rating_history_bot_id_rated_seq_pk" PRIMARY KEY("bot_id","rated_seq");--> statement-breakpoint
CREATE INDEX "tables_status_idx" ON "tables" USING btree ("status","host_id") WHERE "tables"."status" in ('waiting', 'running');--> statement-breakpoint
CREATE INDEX "transactions_developer_order_idx" ON "transactions" USING btree ("developer_id","created_at");