-- Issue 35, a match's own rows: a match's players are keyed by (match, seat position) instead of
-- (match, bot): a 4-byte int instead of a 25-byte text in each entry of the key (~26 bytes a
-- player). Both pairs are unique within a match: bots join a table only while it waits, and a bot
-- holds one open seat (seats_one_open_seat_per_bot), so no match has a bot twice or a position
-- twice. Every reader finds a match's players by the match (the key's first column) or a bot's by
-- match_players_bot_idx, as before. Builds the new key's index (0.3 s for 500,000 players on this
-- 2-core machine, locking match_players meanwhile; on a larger table build it first, without a lock:
--   CREATE UNIQUE INDEX CONCURRENTLY match_players_match_id_position_key ON match_players (match_id, position);
-- and this file makes that index the key). Nodes of the version before keep working (nothing they
-- run names the key).
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'match_players_match_id_bot_id_pk') THEN
    ALTER TABLE "match_players" DROP CONSTRAINT "match_players_match_id_bot_id_pk";
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'match_players_match_id_position_pk') THEN
    -- An index built beforehand (CONCURRENTLY, above) becomes the key when it is valid; a failed build is dropped.
    IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'match_players_match_id_position_key' AND i.indisvalid) THEN
      ALTER TABLE "match_players" ADD CONSTRAINT "match_players_match_id_position_pk" PRIMARY KEY USING INDEX "match_players_match_id_position_key";
    ELSE
      DROP INDEX IF EXISTS "match_players_match_id_position_key";
      ALTER TABLE "match_players" ADD CONSTRAINT "match_players_match_id_position_pk" PRIMARY KEY ("match_id", "position");
    END IF;
  END IF;
END $$;
