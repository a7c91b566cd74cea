ALTER TABLE "matches" ADD COLUMN "hands_reserved" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "voided_hands" integer[] DEFAULT '{}'::int[] NOT NULL;--> statement-breakpoint
ALTER TABLE "seats" ADD COLUMN "leaving" boolean DEFAULT false NOT NULL;