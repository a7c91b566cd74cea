CREATE TABLE "bot_code_versions" (
	"bot_id" text NOT NULL,
	"version" integer NOT NULL,
	"sha256" text NOT NULL,
	"bytes" integer NOT NULL,
	"language" text NOT NULL,
	"source" text NOT NULL,
	"bundled" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bot_code_versions_bot_id_version_pk" PRIMARY KEY("bot_id","version"),
	CONSTRAINT "bot_code_versions_version_positive" CHECK ("bot_code_versions"."version" >= 1)
);
--> statement-breakpoint
CREATE TABLE "hosted_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"bot_id" text NOT NULL,
	"match_id" text NOT NULL,
	"version" integer NOT NULL,
	"hand_number" integer,
	"kind" text NOT NULL,
	"failure" text,
	"level" text,
	"message" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bot_ratings" ADD COLUMN "sum_adjusted_bb" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "bot_ratings" ADD COLUMN "sum_adjusted_bb_squared" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "match_players" ADD COLUMN "code_version" integer;--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "rating_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "seats" ADD COLUMN "code_version" integer;--> statement-breakpoint
CREATE INDEX "hosted_logs_bot_match_idx" ON "hosted_logs" USING btree ("bot_id","match_id","id");--> statement-breakpoint
-- Ratings recorded before adjusted figures existed: the raw sums stand in until `bun run ratings:rebuild` recomputes them.
UPDATE "bot_ratings" SET "sum_adjusted_bb" = "sum_bb", "sum_adjusted_bb_squared" = "sum_bb_squared";--> statement-breakpoint
CREATE INDEX "matches_rating_pending_idx" ON "matches" USING btree ("id") WHERE "rating_pending";
