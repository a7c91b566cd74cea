-- Issue 35, a match's own rows: a table's config (~160 bytes of jsonb) is stored once per distinct
-- config in table_configs, and a table names it (config_id, 4 bytes): the ladder's tables, one a
-- match, share a config per format, a competition's share its own. Tables made before keep their
-- copy (`config` stays, now nullable; every reader takes whichever the row has: tables/config-rows.ts).
-- Catalog changes and an empty table only: no row is rewritten. Rolling deploy: nodes of the
-- version before read no config for tables made since: replace every node.
CREATE TABLE "table_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"config" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tables" ALTER COLUMN "config" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "tables" ADD COLUMN "config_id" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "table_configs_config_key" ON "table_configs" USING btree ("config");--> statement-breakpoint
ALTER TABLE "tables" ADD CONSTRAINT "tables_config_id_table_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."table_configs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tables" ADD CONSTRAINT "tables_config_known" CHECK ("tables"."config" is not null or "tables"."config_id" is not null);