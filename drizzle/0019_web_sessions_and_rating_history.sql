CREATE TABLE "bot_rating_history" (
	"bot_id" text NOT NULL,
	"match_id" text NOT NULL,
	"rated_seq" bigint NOT NULL,
	"mu" double precision NOT NULL,
	"sigma" double precision NOT NULL,
	"hands" integer NOT NULL,
	"sum_bb" double precision NOT NULL,
	"sum_bb_squared" double precision NOT NULL,
	"sum_adjusted_bb" double precision NOT NULL,
	"sum_adjusted_bb_squared" double precision NOT NULL,
	CONSTRAINT "bot_rating_history_bot_id_match_id_pk" PRIMARY KEY("bot_id","match_id")
);
--> statement-breakpoint
CREATE TABLE "web_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"developer_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "bot_rating_history_order_idx" ON "bot_rating_history" USING btree ("bot_id","rated_seq");--> statement-breakpoint
CREATE INDEX "bot_rating_history_match_idx" ON "bot_rating_history" USING btree ("match_id");--> statement-breakpoint
CREATE INDEX "web_sessions_developer_idx" ON "web_sessions" USING btree ("developer_id");