-- Issue 35, a match's own rows: a ledger row's id is no longer stored but derived from its key,
-- `transaction_id(seq, created_at)`: "tx_", the 10 digits of its millisecond (as every id made
-- by src/lib/ids.ts begins, so ids still sort by time), then its sequence in 12 digits (Crockford
-- base 32), 22 digits like any id. The key becomes the sequence: ~26 bytes a row in the heap and
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
-- The time digits are those every id begins with: hand_chunks_bound (0017) writes "m_" and them.
CREATE FUNCTION "transaction_id"("seq" bigint, "at" timestamptz) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n bigint := "seq";
  digits constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  seq_digits text := '';
BEGIN
  FOR i IN 1..12 LOOP
    seq_digits := substr(digits, (n % 32)::int + 1, 1) || seq_digits;
    n := n / 32;
  END LOOP;
  RETURN 'tx_' || substr(hand_chunks_bound("at"), 3) || seq_digits;
END $$;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "transactions_seq_key" ON "transactions" USING btree ("seq");
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "transactions_stored_id_key" ON "transactions" USING btree ("id") WHERE "transactions"."id" is not null;
--> statement-breakpoint
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_pkey", ADD CONSTRAINT "transactions_pkey" PRIMARY KEY USING INDEX "transactions_seq_key";
--> statement-breakpoint
ALTER TABLE "transactions" ALTER COLUMN "id" DROP NOT NULL;
