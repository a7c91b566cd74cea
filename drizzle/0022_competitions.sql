CREATE TABLE "challenge_offers" (
	"bot_id" text PRIMARY KEY NOT NULL,
	"max_buy_in" bigint NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "challenge_offers_max_buy_in_positive" CHECK ("challenge_offers"."max_buy_in" > 0)
);
--> statement-breakpoint
CREATE TABLE "tournament_entries" (
	"tournament_id" text NOT NULL,
	"bot_id" text NOT NULL,
	"developer_id" text NOT NULL,
	"entered_at" timestamp with time zone NOT NULL,
	CONSTRAINT "tournament_entries_tournament_id_bot_id_pk" PRIMARY KEY("tournament_id","bot_id")
);
--> statement-breakpoint
CREATE TABLE "tournament_matches" (
	"tournament_id" text NOT NULL,
	"round" integer NOT NULL,
	"bot_a" text NOT NULL,
	"bot_b" text NOT NULL,
	"table_id" text,
	"status" text NOT NULL,
	"forfeited_by" text,
	CONSTRAINT "tournament_matches_tournament_id_round_bot_a_pk" PRIMARY KEY("tournament_id","round","bot_a")
);
--> statement-breakpoint
CREATE TABLE "tournament_rounds" (
	"tournament_id" text NOT NULL,
	"round" integer NOT NULL,
	"deck_commitment" text,
	"deck_secret_sealed" text,
	"deck_secret" text,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "tournament_rounds_tournament_id_round_pk" PRIMARY KEY("tournament_id","round")
);
--> statement-breakpoint
CREATE TABLE "tournaments" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"created_by" text NOT NULL,
	"settings" jsonb NOT NULL,
	"status" text NOT NULL,
	"table_id" text,
	"results" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"starts_at" timestamp with time zone,
	"current_round" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "tournaments_kind_valid" CHECK ("tournaments"."kind" in ('sit-and-go', 'round-robin'))
);
--> statement-breakpoint
ALTER TABLE "tournament_entries" ADD CONSTRAINT "tournament_entries_tournament_id_tournaments_id_fk" FOREIGN KEY ("tournament_id") REFERENCES "public"."tournaments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tournament_matches" ADD CONSTRAINT "tournament_matches_tournament_id_tournaments_id_fk" FOREIGN KEY ("tournament_id") REFERENCES "public"."tournaments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tournament_rounds" ADD CONSTRAINT "tournament_rounds_tournament_id_tournaments_id_fk" FOREIGN KEY ("tournament_id") REFERENCES "public"."tournaments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tournament_entries_one_per_developer" ON "tournament_entries" USING btree ("tournament_id","developer_id");--> statement-breakpoint
CREATE INDEX "tournament_matches_table_idx" ON "tournament_matches" USING btree ("table_id");--> statement-breakpoint
CREATE INDEX "tournaments_listing_idx" ON "tournaments" USING btree ("status","kind","id");