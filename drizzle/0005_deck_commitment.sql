ALTER TABLE "matches" ADD COLUMN "deck_commitment" text;--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "deck_secret" text;