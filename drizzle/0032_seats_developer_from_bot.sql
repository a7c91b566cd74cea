-- Issue 35, a match's own rows: a seat no longer stores its developer where its bot names it (~24
-- bytes a seat): a bot's owner never changes, so readers take the bot's (src/db/seat-developer.ts).
-- A seat whose bot does not name it (no bot: a ledger-only stake) and seats opened before keep
-- theirs. A catalog change: no row is rewritten. Rolling deploy: nodes of the version before read
-- no developer for seats opened since (0030 already asks every node to be replaced).
ALTER TABLE "seats" ALTER COLUMN "developer_id" DROP NOT NULL;
