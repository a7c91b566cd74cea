CREATE TABLE "idempotency_keys" (
	"developer_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer,
	"body" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_developer_id_key_pk" PRIMARY KEY("developer_id","key")
);
--> statement-breakpoint
DROP INDEX "bots_developer_name_key";--> statement-breakpoint
ALTER TABLE "bots" ADD COLUMN "retired_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "bots_developer_name_key" ON "bots" USING btree ("developer_id","name") WHERE "bots"."retired_at" is null;