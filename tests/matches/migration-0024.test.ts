/**
 * Migrations 0024–0026 (issue 35, a match's own rows) on a database with rows: matches.config,
 * match_players.seat_id and match_players.developer_id become nullable, nothing is rewritten. Rows written before keep their
 * values; a match's config is then read from its table (the same), and a match or a player written
 * without them is accepted.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "../../src/db";
import * as schema from "../../src/db/schema";
import { selectMatches } from "../../src/modules/match-host/match-rows";
import { migrateToLatest, withDatabaseMigratedUpTo } from "../support/migrations";

// Two migrations run from scratch: seconds on a loaded machine.
setDefaultTimeout(30_000);

const CONFIG = { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 50, actionTimeoutMs: 2000 };

describe("migrations 0024–0026: a match's config, a player's seat and its developer are no longer required", () => {
  test("old rows keep theirs and read the same; new rows go in without them", async () => {
    await withDatabaseMigratedUpTo("migration_0024", "0023_z", async (client) => {
      await client`insert into developers (id, email, password_hash, balance, created_at) values ('dev_x', 'x@example.com', 'x', 0, now())`;
      for (const id of ["old", "new"]) {
        await client`insert into tables (id, created_by, config, status, host_id, match_id, created_at) values (${`tbl_${id}`}, 'dev_x', ${JSON.stringify(CONFIG)}::jsonb, 'finished', 'local', ${`m_${id}`}, now())`;
      }
      await client`insert into matches (id, table_id, status, config, hands_played, started_at, ended_at) values ('m_old', 'tbl_old', 'completed', ${JSON.stringify(CONFIG)}::jsonb, 50, now(), now())`;
      await client`insert into match_players (match_id, bot_id, developer_id, seat_id, position, buy_in, final_chips, profit, hands_played, hands_won)
        values ('m_old', 'bot_a', 'dev_x', 'seat_a', 0, 1000, 1200, 200, 50, 30)`;
      const refused = await client`insert into matches (id, table_id, status, started_at) values ('m_new', 'tbl_new', 'running', now())`.catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);

      await migrateToLatest(client);
      const nullable = await client`select table_name, column_name, is_nullable from information_schema.columns
        where (table_name, column_name) in (('matches', 'config'), ('match_players', 'seat_id'), ('match_players', 'developer_id')) order by table_name, column_name`;
      expect(nullable.map((c) => [c.table_name, c.column_name, c.is_nullable])).toEqual([
        ["match_players", "developer_id", "YES"],
        ["match_players", "seat_id", "YES"],
        ["matches", "config", "YES"],
      ]);
      await client`insert into matches (id, table_id, status, started_at) values ('m_new', 'tbl_new', 'running', now())`;
      await client`insert into match_players (match_id, bot_id, position, buy_in, final_chips, profit, hands_played, hands_won)
        values ('m_new', 'bot_a', 0, 1000, 1000, 0, 0, 0)`;
      const kept = await client`select m.config, p.seat_id, p.developer_id from matches m join match_players p on p.match_id = m.id where m.id = 'm_old'`;
      expect(kept.map((row) => [row.config, row.seat_id, row.developer_id])).toEqual([[CONFIG, "seat_a", "dev_x"]]);

      const db = drizzle(client, { schema }) as unknown as Db;
      for (const id of ["m_old", "m_new"]) {
        const [match] = await selectMatches(db).where(eq(schema.matches.id, id));
        expect(match.config).toEqual(CONFIG);
      }
    });
  });
});
