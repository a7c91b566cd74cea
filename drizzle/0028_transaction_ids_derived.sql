-- Issue 35, a match's own rows: a ledger row's id is no longer stored but derived from its key,
-- `transaction_id(seq, created_at)`: "tx_", the 10 digits of its millisecond (as every id made
-- by src/lib/ids.ts begins, so ids still sort by time), then its sequence in 12 digits (Crockford
-- base 32). The key becomes the sequence: ~26 bytes a row in the heap and
-- ~24 in the key (a bigint instead of a 30-byte text), 4 rows a heads-up match, 12 a six-max one.
-- Rows written before keep their stored id (the same API answers, the same cursors), found by a
-- partial unique index that rows since do not enter.
--
-- Size: both indexes are built here, holding writes to `transactions` meanwhile (about a second a
-- million rows). On a ledger too large for that, build them first, without a lock, and this
-- migration then only swaps the key (IF NOT EXISTS):
--   CREATE UNIQUE INDEX CONCURRENTLY transactions_seq_key ON transactions (seq);
--   CREATE UNIQUE INDEX CONCURRENTLY transactions_stored_id_key ON transactions (id) WHERE id IS NOT NULL;
-- Rolling deploy: nodes of the version before read a null id for rows written since (their
-- `GET /api/me/transactions` of a developer who has one fails): replace every node.
-- One expression (an SQL function the planner inlines: no interpreter a row; a page of the
-- ledger computes 50 ids). The time digits are those every id begins with (src/lib/ids.ts).
CREATE FUNCTION "transaction_id"("seq" bigint, "at" timestamptz) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT 'tx_'
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 45) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 40) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 35) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 30) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 25) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 20) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 15) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 10) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 5) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (((floor(extract(epoch FROM "at" - to_timestamp(0)) * 1000)::bigint) >> 0) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 55) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 50) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 45) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 40) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 35) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 30) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 25) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 20) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 15) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 10) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 5) & 31)::int + 1, 1)
  || substr('0123456789abcdefghjkmnpqrstvwxyz', (("seq" >> 0) & 31)::int + 1, 1)
$$;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "transactions_seq_key" ON "transactions" USING btree ("seq");
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "transactions_stored_id_key" ON "transactions" USING btree ("id") WHERE "transactions"."id" is not null;
--> statement-breakpoint
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_pkey", ADD CONSTRAINT "transactions_pkey" PRIMARY KEY USING INDEX "transactions_seq_key";
--> statement-breakpoint
ALTER TABLE "transactions" ALTER COLUMN "id" DROP NOT NULL;
