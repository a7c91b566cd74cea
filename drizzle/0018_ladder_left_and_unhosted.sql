-- Issue 33: hosting can be turned off (DELETE /api/bots/:botId/code sets it; the next upload clears it),
-- and leaving the ladder keeps the entry's record in the standings as `left` (entering again clears it).
ALTER TABLE "bots" ADD COLUMN "unhosted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ladder_entries" ADD COLUMN "left_at" timestamp with time zone;