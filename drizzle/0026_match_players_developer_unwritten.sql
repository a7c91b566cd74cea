-- Issue 35, a match's own rows: match_players no longer stores the player's developer (a bot's
-- owner never changes: readers join bots on bot_id). Dropping NOT NULL is a catalog change only
-- (no rewrite, a brief lock); rows written before keep theirs (the same value), and nodes of the
-- previous version (which still write it, and read their own rows' copy) keep working during a
-- rolling deploy.
ALTER TABLE "match_players" ALTER COLUMN "developer_id" DROP NOT NULL;
