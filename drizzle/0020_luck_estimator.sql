ALTER TABLE "bot_ratings" ADD COLUMN "estimator" text DEFAULT 'chance-1' NOT NULL;--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "rating_estimator" text;--> statement-breakpoint
-- Matches rated before this migration were rated by chance-1 (all-in adjusted and chance corrected).
UPDATE "matches" SET "rating_estimator" = 'chance-1' WHERE "rated_seq" IS NOT NULL;
