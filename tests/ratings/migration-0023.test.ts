/**
 * Migration 0023 (issue 35, bytes a hand) on a database with rows: it drops and rebuilds indexes and
 * gives bot_rating_history a new key (bot, rated_seq). The rows stay, the ledger still audits clean,
 * and the ratings read from the history (a bot's points, its results by opponent) answer the same
 * before and after, now that a match's other players are found through match_players.
 */
import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "../../src/db";
import * as schema from "../../src/db/schema";
import { auditLedger } from "../../src/modules/credits/audit";
import { Ratings } from "../../src/modules/ratings/service";
import { migrateToLatest, withDatabaseMigratedUpTo } from "../support/migrations";

/** Rated matches: their players (bot, hands) in seat order, in rating order (rated_seq 1, 2, 3). */
const RATED = [
  { id: "m_3way", players: [["bot_a", 40], ["bot_b", 40], ["bot_c", 38]] },
  { id: "m_hu", players: [["bot_a", 25], ["bot_b", 25]] },
  { id: "m_bc", players: [["bot_b", 12], ["bot_c", 12]] },
] as const;

async function seed(client: postgres.Sql): Promise<void> {
  await client`insert into developers (id, email, password_hash, balance, created_at) values ('dev_x', 'x@example.com', 'x', 0, now()), ('dev_y', 'y@example.com', 'x', 0, now())`;
  const config = { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 3, maxHands: 50, actionTimeoutMs: 2000 };
  for (const [seq, match] of RATED.entries()) {
    await client`insert into tables (id, created_by, config, status, host_id, match_id, created_at) values (${`tbl_${match.id}`}, 'dev_x', ${JSON.stringify(config)}::jsonb, 'finished', 'local', ${match.id}, now())`;
    await client`insert into matches (id, table_id, status, config, hands_played, started_at, ended_at, rated_seq, rating_estimator)
      values (${match.id}, ${`tbl_${match.id}`}, 'completed', ${JSON.stringify(config)}::jsonb, 50, now(), ${new Date(Date.UTC(2026, 0, 1 + seq)).toISOString()}::timestamptz, ${seq + 1}, 'aivat-2')`;
    for (const [position, [botId, hands]] of match.players.entries()) {
      const developerId = position % 2 === 0 ? "dev_x" : "dev_y";
      await client`insert into match_players (match_id, bot_id, developer_id, seat_id, position, buy_in, final_chips, profit, hands_played, hands_won)
        values (${match.id}, ${botId}, ${developerId}, ${`seat_${match.id}_${position}`}, ${position}, 1000, 1000, 0, ${hands}, 0)`;
      await client`insert into bot_rating_history (bot_id, match_id, rated_seq, mu, sigma, hands, sum_bb, sum_bb_squared, sum_adjusted_bb, sum_adjusted_bb_squared)
        values (${botId}, ${match.id}, ${seq + 1}, ${25 + seq + position / 10}, ${8 - seq / 10}, ${hands}, ${hands / 10}, ${hands / 5}, ${hands / 20}, ${hands / 4})`;
    }
  }
  // A ledger with a seat played out: a grant, a buy-in that opened the seat, its cashout (even: chips come only from grants).
  await client`insert into transactions (id, developer_id, type, amount, balance_after, created_at) values ('tx_1', 'dev_x', 'faucet', 5000, 5000, now())`;
  await client`insert into seats (id, developer_id, bot_id, table_id, position, buy_in, chips, status, cashout, opened_at, closed_at)
    values ('seat_1', 'dev_x', 'bot_a', 'tbl_m_hu', 0, 1000, 0, 'closed', 1000, now(), now())`;
  await client`insert into transactions (id, developer_id, type, amount, balance_after, bot_id, table_id, seat_id, created_at)
    values ('tx_2', 'dev_x', 'buy_in', -1000, 4000, 'bot_a', 'tbl_m_hu', 'seat_1', now() + interval '1 ms')`;
  await client`insert into transactions (id, developer_id, type, amount, balance_after, bot_id, table_id, match_id, seat_id, created_at)
    values ('tx_3', 'dev_x', 'cashout', 1000, 5000, 'bot_a', 'tbl_m_hu', 'm_hu', 'seat_1', now() + interval '2 ms')`;
  await client`update developers set balance = 5000 where id = 'dev_x'`;
}

const indexesOf = async (client: postgres.Sql, table: string) =>
  (await client`select indexname from pg_indexes where schemaname = 'public' and tablename = ${table} order by indexname`).map((row) => row.indexname as string);

describe("migration 0023 on a database with rated matches and a ledger", () => {
  test("the rows stay, the audit holds, a bot's rating points and results by opponent read the same; the history's key is (bot, rated_seq)", async () => {
    await withDatabaseMigratedUpTo("migration_0023", "0022_z", async (client) => {
      await seed(client);
      const db = drizzle(client, { schema }) as unknown as Db;
      const ratings = new Ratings(db);
      const read = async () => ({
        opponents: await ratings.byOpponent("bot_a"),
        opponentsOfC: await ratings.byOpponent("bot_c"),
        points: await ratings.history("bot_b"),
      });
      const before = await read();
      // The figures themselves, not only their sameness: bot_a met bot_b twice (40 + 25 hands) and bot_c once.
      expect(before.opponents.map((o) => [o.opponentId, o.matches, o.hands])).toEqual([["bot_b", 2, 65], ["bot_c", 1, 40]]);
      expect(before.opponentsOfC.map((o) => [o.opponentId, o.matches, o.hands])).toEqual([["bot_b", 2, 50], ["bot_a", 1, 38]]);
      expect(before.points.map((p) => p.matchId)).toEqual(["m_3way", "m_hu", "m_bc"]);

      await migrateToLatest(client);

      expect(await read()).toEqual(before);
      expect((await client`select count(*)::int as n from bot_rating_history`)[0].n).toBe(7);
      expect((await client`select count(*)::int as n from transactions`)[0].n).toBe(3);
      const audit = await auditLedger(db);
      expect(audit.problems).toEqual([]);
      expect(audit).toMatchObject({ ok: true, transactions: 3 });
      // One index on the history, its key; the ledger's: its key (the id's, the sequence's since 0028), by developer and time (none by seat since 0027), the stored ids (0028).
      expect(await indexesOf(client, "bot_rating_history")).toEqual(["bot_rating_history_bot_id_rated_seq_pk"]);
      expect(await indexesOf(client, "transactions")).toEqual(["transactions_developer_order_idx", "transactions_pkey", "transactions_stored_id_key"]);
      expect((await client`select indexdef from pg_indexes where indexname = 'transactions_developer_order_idx'`)[0].indexdef).toContain("(developer_id, created_at)");
      // The new key holds: a second point of one bot at one rating step is refused.
      const duplicate = await client`insert into bot_rating_history (bot_id, match_id, rated_seq, mu, sigma, hands, sum_bb, sum_bb_squared, sum_adjusted_bb, sum_adjusted_bb_squared)
        values ('bot_a', 'm_other', 1, 25, 8, 1, 0, 0, 0, 0)`.then(() => null, (error: { code?: string }) => error.code);
      expect(duplicate).toBe("23505");
    });
  });
});
