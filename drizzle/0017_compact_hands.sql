-- Issue 35: hands in a few bytes. Hand histories move from one JSON document per hand (`hands`,
-- kept as `hands_legacy` and read side by side until the conversion has moved every row) to
-- chunks of consecutive hands of one match (src/poker/hand-codec.ts). Nothing here rewrites a
-- row: the rename and the constraint renames are catalog changes, instant on any size of table.
-- The rows are converted by the service, online, in batches (match-host/hand-conversion.ts).

-- Partitioned by range of match id: ids begin with their creation time in Crockford base 32
-- ("m_" + 10 characters of milliseconds, lowercase digits and letters, which sort alike under
-- every collation), so a month of matches is a range of ids. Every hand of a match is in the
-- partition of the month the match started, and a read by match id touches that one partition.
CREATE TABLE "hand_chunks" (
	"match_id" text NOT NULL,
	"first_number" integer NOT NULL,
	"last_number" integer NOT NULL,
	"data" bytea NOT NULL,
	CONSTRAINT "hand_chunks_match_id_first_number_pk" PRIMARY KEY("match_id","first_number")
) PARTITION BY RANGE ("match_id");
--> statement-breakpoint
-- Whatever no month's partition covers (ids of another shape, a month nobody created yet).
CREATE TABLE "hand_chunks_default" PARTITION OF "hand_chunks" DEFAULT;
--> statement-breakpoint
-- The smallest match id made at `at` (src/lib/ids.ts newId): a month's partition bound.
CREATE FUNCTION "hand_chunks_bound"("at" timestamptz) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  ms bigint := floor(extract(epoch FROM "at") * 1000);
  digits constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  encoded text := '';
BEGIN
  FOR i IN 1..10 LOOP
    encoded := substr(digits, (ms % 32)::int + 1, 1) || encoded;
    ms := ms / 32;
  END LOOP;
  RETURN 'm_' || encoded;
END $$;
--> statement-breakpoint
-- The partition of the UTC month starting `month` (hand_chunks_YYYY_MM), created if missing. Rows
-- already in the default partition for that month move into it, in the same transaction.
CREATE FUNCTION "ensure_hand_chunks_partition"("month" date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  first_day constant date := date_trunc('month', "month")::date;
  name constant text := 'hand_chunks_' || to_char(first_day, 'YYYY_MM');
  low constant text := hand_chunks_bound(first_day::timestamp AT TIME ZONE 'UTC');
  high constant text := hand_chunks_bound((first_day + interval '1 month')::timestamp AT TIME ZONE 'UTC');
BEGIN
  IF to_regclass(name) IS NOT NULL THEN RETURN name; END IF;
  -- Two nodes creating the same month wait for each other (an arbitrary, fixed key).
  PERFORM pg_advisory_xact_lock(35181);
  IF to_regclass(name) IS NOT NULL THEN RETURN name; END IF;
  IF EXISTS (SELECT 1 FROM hand_chunks_default WHERE match_id >= low AND match_id < high) THEN
    EXECUTE format('CREATE TABLE %I (LIKE hand_chunks INCLUDING ALL)', name);
    EXECUTE format('INSERT INTO %I SELECT * FROM hand_chunks_default WHERE match_id >= %L AND match_id < %L', name, low, high);
    DELETE FROM hand_chunks_default WHERE match_id >= low AND match_id < high;
    EXECUTE format('ALTER TABLE hand_chunks ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, low, high);
  ELSE
    EXECUTE format('CREATE TABLE %I PARTITION OF hand_chunks FOR VALUES FROM (%L) TO (%L)', name, low, high);
  END IF;
  RETURN name;
END $$;
--> statement-breakpoint
-- A partition for every month that has matches, through two months ahead (each node then keeps
-- two months ahead at its start and daily: match-host/hand-partitions.ts).
SELECT ensure_hand_chunks_partition(m::date) FROM generate_series(
  date_trunc('month', coalesce((SELECT min(started_at) FROM matches), now()) AT TIME ZONE 'UTC'),
  date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months',
  interval '1 month') AS m;
--> statement-breakpoint
ALTER TABLE "hands" RENAME TO "hands_legacy";
--> statement-breakpoint
ALTER TABLE "hands_legacy" RENAME CONSTRAINT "hands_match_id_matches_id_fk" TO "hands_legacy_match_id_matches_id_fk";
--> statement-breakpoint
ALTER TABLE "hands_legacy" RENAME CONSTRAINT "hands_match_id_number_pk" TO "hands_legacy_match_id_number_pk";
--> statement-breakpoint
-- Every hand number recorded, in either form (operators, tests): `select number from hands where match_id = …`.
CREATE VIEW "hands" AS
  SELECT match_id, number FROM hands_legacy
  UNION ALL
  SELECT c.match_id, n.number FROM hand_chunks c CROSS JOIN LATERAL generate_series(c.first_number, c.last_number) AS n(number);
--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "deck_secret_sealed" text;
--> statement-breakpoint
ALTER TABLE "matches" ADD COLUMN "seat_bots" text[];
