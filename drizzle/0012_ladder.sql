CREATE TABLE "bot_presence" (
	"bot_id" text PRIMARY KEY NOT NULL,
	"host_id" text NOT NULL,
	"since" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster_roles" (
	"role" text PRIMARY KEY NOT NULL,
	"host_id" text NOT NULL,
	"epoch" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ladder_entries" (
	"bot_id" text NOT NULL,
	"format" text NOT NULL,
	"developer_id" text NOT NULL,
	"entered_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ladder_entries_bot_id_format_pk" PRIMARY KEY("bot_id","format")
);
--> statement-breakpoint
ALTER TABLE "tables" ADD COLUMN "ladder" text;--> statement-breakpoint
ALTER TABLE "ladder_entries" ADD CONSTRAINT "ladder_entries_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ladder_entries" ADD CONSTRAINT "ladder_entries_developer_id_developers_id_fk" FOREIGN KEY ("developer_id") REFERENCES "public"."developers"("id") ON DELETE no action ON UPDATE no action;