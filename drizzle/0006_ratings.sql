CREATE SEQUENCE "public"."rating_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "bot_ratings" (
	"bot_id" text PRIMARY KEY NOT NULL,
	"mu" double precision NOT NULL,
	"sigma" double precision NOT NULL,
	"rating" double precision NOT NULL,
	"matches_played" integer NOT NULL,
	"hands_played" integer NOT NULL,
	"sum_bb" double precision NOT NULL,
	"sum_bb_squared" double precision NOT NULL
);
--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "rated_seq" bigint;--> statement-breakpoint
CREATE INDEX "bot_ratings_order_idx" ON "bot_ratings" USING btree ("rating" DESC NULLS LAST,"bot_id");