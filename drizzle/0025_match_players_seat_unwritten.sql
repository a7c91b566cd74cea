-- Issue 35, a match's own rows: match_players no longer stores the player's seat (read by nothing
-- in the service; a player's seat is its bot's seat whose cashout row names the match). Dropping
-- NOT NULL is a catalog change only (no rewrite, a brief lock); rows written before keep theirs,
-- and nodes of the previous version (which still write it) keep working during a rolling deploy.
ALTER TABLE "match_players" ALTER COLUMN "seat_id" DROP NOT NULL;
