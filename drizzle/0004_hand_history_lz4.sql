-- Hand histories are written thousands of times a second: lz4 compresses them at a fraction of
-- pglz's CPU cost. A server built without lz4 (embedded PGlite is) keeps its default.
DO $$
BEGIN
  ALTER TABLE "hands" ALTER COLUMN "history" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available: hand histories keep the default compression';
END $$;
