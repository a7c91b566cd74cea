-- Issue 35, a match's own rows: a match's config is its table's (one match a table, a table's config
-- never changes), so new matches store no copy and every reader takes tables.config through the
-- match's table_id (match-host/match-rows.ts). Dropping NOT NULL is a catalog change only (no
-- rewrite, a brief lock); rows written before keep their copy, unread, and nodes of the previous
-- version (which still write it) keep working during a rolling deploy. A later migration may drop it.
ALTER TABLE "matches" ALTER COLUMN "config" DROP NOT NULL;
