-- Issue 32: a duplicate match is two ordinary matches at twin tables (tables.twin_id, tables.copy),
-- each copy's match naming the other (matches.twin_match_id); a bot holds one open seat per copy.
-- The old index and the new one are swapped in the migration's one transaction.
DROP INDEX "seats_one_open_seat_per_bot";--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "twin_match_id" text;--> statement-breakpoint
ALTER TABLE "seats" ADD COLUMN "copy" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "tables" ADD COLUMN "twin_id" text;--> statement-breakpoint
ALTER TABLE "tables" ADD COLUMN "copy" smallint;--> statement-breakpoint
CREATE UNIQUE INDEX "seats_one_open_seat_per_bot" ON "seats" USING btree ("bot_id","copy") WHERE "seats"."status" = 'open' and "seats"."bot_id" is not null;--> statement-breakpoint
ALTER TABLE "seats" ADD CONSTRAINT "seats_copy_valid" CHECK ("seats"."copy" in (1, 2));--> statement-breakpoint
ALTER TABLE "tables" ADD CONSTRAINT "tables_twin_copy" CHECK (("tables"."twin_id" is null and "tables"."copy" is null) or ("tables"."twin_id" is not null and "tables"."copy" in (1, 2)));