-- Issue 35, a match's own rows: match_players no longer stores the player's developer (a bot's
-- owner never changes: readers join bots on bot_id). Dropping NOT NULL is a catalog change only
-- (no rewrite, a brief lock); rows written before keep theirs (the same value). During a rolling
-- deploy, nodes of the previous version still write it, and read it: until they are replaced they
-- do not count the new version's matches in the house's daily limit or the collusion report.
ALTER TABLE "match_players" ALTER COLUMN "developer_id" DROP NOT NULL;
