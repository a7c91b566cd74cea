CREATE TABLE "bot_stats" (
	"bot_id" text PRIMARY KEY NOT NULL,
	"matches_played" integer DEFAULT 0 NOT NULL,
	"matches_won" integer DEFAULT 0 NOT NULL,
	"hands_played" integer DEFAULT 0 NOT NULL,
	"hands_won" integer DEFAULT 0 NOT NULL,
	"total_buy_ins" bigint DEFAULT 0 NOT NULL,
	"total_winnings" bigint DEFAULT 0 NOT NULL,
	"net_chips" bigint DEFAULT 0 NOT NULL,
	"biggest_win" bigint DEFAULT 0 NOT NULL,
	"biggest_loss" bigint DEFAULT 0 NOT NULL,
	"last_played" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "hands" (
	"match_id" text NOT NULL,
	"number" integer NOT NULL,
	"history" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "hands_match_id_number_pk" PRIMARY KEY("match_id","number")
);
--> statement-breakpoint
CREATE TABLE "match_players" (
	"match_id" text NOT NULL,
	"bot_id" text NOT NULL,
	"developer_id" text NOT NULL,
	"seat_id" text NOT NULL,
	"position" integer NOT NULL,
	"buy_in" bigint NOT NULL,
	"final_chips" bigint NOT NULL,
	"profit" bigint NOT NULL,
	"hands_played" integer NOT NULL,
	"hands_won" integer NOT NULL,
	CONSTRAINT "match_players_match_id_bot_id_pk" PRIMARY KEY("match_id","bot_id")
);
--> statement-breakpoint
CREATE TABLE "matches" (
	"id" text PRIMARY KEY NOT NULL,
	"table_id" text NOT NULL,
	"status" text NOT NULL,
	"config" jsonb NOT NULL,
	"hands_played" integer DEFAULT 0 NOT NULL,
	"winners" jsonb,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"duration_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "tables" (
	"id" text PRIMARY KEY NOT NULL,
	"created_by" text NOT NULL,
	"config" jsonb NOT NULL,
	"status" text NOT NULL,
	"host_id" text NOT NULL,
	"match_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "seats" ADD COLUMN "position" integer;--> statement-breakpoint
ALTER TABLE "hands" ADD CONSTRAINT "hands_match_id_matches_id_fk" FOREIGN KEY ("match_id") REFERENCES "public"."matches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "match_players" ADD CONSTRAINT "match_players_match_id_matches_id_fk" FOREIGN KEY ("match_id") REFERENCES "public"."matches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matches" ADD CONSTRAINT "matches_table_id_tables_id_fk" FOREIGN KEY ("table_id") REFERENCES "public"."tables"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tables" ADD CONSTRAINT "tables_created_by_developers_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."developers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "match_players_bot_idx" ON "match_players" USING btree ("bot_id");--> statement-breakpoint
CREATE INDEX "matches_listing_idx" ON "matches" USING btree ("status","ended_at","id");--> statement-breakpoint
CREATE INDEX "tables_status_idx" ON "tables" USING btree ("status","host_id");--> statement-breakpoint
CREATE UNIQUE INDEX "seats_one_open_seat_per_position" ON "seats" USING btree ("table_id","position") WHERE "seats"."status" = 'open' and "seats"."position" is not null;