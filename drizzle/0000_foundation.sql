CREATE TABLE "bots" (
	"id" text PRIMARY KEY NOT NULL,
	"developer_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"strategy" text,
	"api_key_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "developers" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"password_hash" text NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"last_faucet_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "developers_balance_non_negative" CHECK ("developers"."balance" >= 0)
);
--> statement-breakpoint
CREATE TABLE "seats" (
	"id" text PRIMARY KEY NOT NULL,
	"developer_id" text NOT NULL,
	"bot_id" text,
	"table_id" text,
	"buy_in" bigint NOT NULL,
	"chips" bigint NOT NULL,
	"status" text NOT NULL,
	"cashout" bigint,
	"opened_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "seats_chips_non_negative" CHECK ("seats"."chips" >= 0),
	CONSTRAINT "seats_status_valid" CHECK ("seats"."status" in ('open', 'closed'))
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"seq" bigserial NOT NULL,
	"id" text PRIMARY KEY NOT NULL,
	"developer_id" text NOT NULL,
	"type" text NOT NULL,
	"amount" bigint NOT NULL,
	"balance_after" bigint NOT NULL,
	"bot_id" text,
	"table_id" text,
	"match_id" text,
	"seat_id" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "transactions_seq_unique" UNIQUE("seq"),
	CONSTRAINT "transactions_type_valid" CHECK ("transactions"."type" in ('faucet', 'buy_in', 'cashout')),
	CONSTRAINT "transactions_amount_sign" CHECK (("transactions"."type" = 'faucet' and "transactions"."amount" > 0) or ("transactions"."type" = 'buy_in' and "transactions"."amount" < 0) or ("transactions"."type" = 'cashout' and "transactions"."amount" >= 0)),
	CONSTRAINT "transactions_balance_after_non_negative" CHECK ("transactions"."balance_after" >= 0)
);
--> statement-breakpoint
ALTER TABLE "bots" ADD CONSTRAINT "bots_developer_id_developers_id_fk" FOREIGN KEY ("developer_id") REFERENCES "public"."developers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seats" ADD CONSTRAINT "seats_developer_id_developers_id_fk" FOREIGN KEY ("developer_id") REFERENCES "public"."developers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_developer_id_developers_id_fk" FOREIGN KEY ("developer_id") REFERENCES "public"."developers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bots_developer_name_key" ON "bots" USING btree ("developer_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "bots_api_key_hash_key" ON "bots" USING btree ("api_key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "developers_email_key" ON "developers" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "seats_one_open_seat_per_bot" ON "seats" USING btree ("bot_id") WHERE "seats"."status" = 'open' and "seats"."bot_id" is not null;--> statement-breakpoint
CREATE INDEX "seats_table_idx" ON "seats" USING btree ("table_id");--> statement-breakpoint
CREATE INDEX "transactions_developer_order_idx" ON "transactions" USING btree ("developer_id","created_at","id");