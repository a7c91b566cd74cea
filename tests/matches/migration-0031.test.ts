/**
 * Migration 0031 (issue 35): match_players' key becomes (match, seat position). On a database with
 * players, by itself, and after an operator built the new key's index beforehand (CONCURRENTLY, as
 * the migration's comment says): either way one key, no spare index, the rows as they were, and a
 * position taken twice in a match refused.
 */
import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import { migrateToLatest, withDatabaseMigratedUpTo } from "../support/migrations";

async function seedPlayers(client: postgres.Sql): Promise<void> {
  await client`insert into developers (id, email, password_hash, balance, created_at) values ('dev_x', 'x@example.com', 'x', 0, now())`;
  await client`insert into tables (id, created_by, config, status, host_id, created_at) values ('tbl_x', 'dev_x', '{}'::jsonb, 'finished', 'local', now())`;
  await client`insert into matches (id, table_id, status, started_at) values ('m_x', 'tbl_x', 'completed', now()), ('m_y', 'tbl_x', 'completed', now())`;
  for (const [match, bot, position] of [["m_x", "bot_a", 0], ["m_x", "bot_b", 1], ["m_x", "bot_c", 2], ["m_y", "bot_a", 1], ["m_y", "bot_c", 0]] as const) {
    await client`insert into match_players (match_id, bot_id, position, buy_in, final_chips, profit, hands_played, hands_won)
      values (${match}, ${bot}, ${position}, 1000, 1000, 0, 10, 2)`;
  }
}

const keyAndIndexes = async (client: postgres.Sql) => ({
  key: (await client`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'match_players'::regclass and contype = 'p'`).map((row) => row.def),
  indexes: (await client`select indexname from pg_indexes where tablename = 'match_players' order by indexname`).map((row) => row.indexname),
});

describe("migration 0031 on a database with match players", () => {
  for (const prebuilt of [false, true]) {
    test(prebuilt ? "with the new key's index built beforehand: it becomes the key" : "by itself: the key is (match, position)", async () => {
      await withDatabaseMigratedUpTo(`migration_0031_${prebuilt ? "prebuilt" : "plain"}`, "0030_z", async (client) => {
        await seedPlayers(client);
        if (prebuilt) await client`create unique index concurrently match_players_match_id_position_key on match_players (match_id, position)`;
        const indexOid = async (name: string) => (await client`select oid::int as oid from pg_class where relname = ${name}`)[0]?.oid ?? null;
        const built = prebuilt ? await indexOid("match_players_match_id_position_key") : null;
        const before = await client`select * from match_players order by match_id, position`;
        await migrateToLatest(client);
        expect(await keyAndIndexes(client)).toEqual({
          key: ["PRIMARY KEY (match_id, \"position\")"],
          // The index built beforehand is the key's, renamed after it: no spare index either way.
          indexes: ["match_players_bot_idx", "match_players_match_id_position_pk"],
        });
        // Taken over, not built again: the same index under the key's name.
        if (prebuilt) expect(await indexOid("match_players_match_id_position_pk")).toBe(built);
        expect(await client`select * from match_players order by match_id, position`).toEqual(before);
        const twice = await client`insert into match_players (match_id, bot_id, position, buy_in, final_chips, profit, hands_played, hands_won)
          values ('m_y', 'bot_b', 1, 1000, 1000, 0, 10, 2)`.catch((error) => error.code);
        expect(twice).toBe("23505");
      });
    });
  }
});
