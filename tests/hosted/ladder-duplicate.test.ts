import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { fundedDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { storeVersion } from "./play-support";
import { bundleFixture } from "./support";
import { tableConfigOf } from "../../src/db/table-config";

setDefaultTimeout(90_000);

// No house bots: the two hosted bots can only meet each other.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("hosted_ladder", { LADDER_HANDS: "6", LADDER_PAIR_EVERY_MS: "50", LADDER_HOUSE_BOTS: "" });
});
afterAll(() => server.close());

describe("two hosted bots on the ladder play duplicate", () => {
  test("always available without a socket; paired heads-up, they play a duplicate pair (two matches at twin tables, seats swapped), rated once; each copy has its own contexts from its first hand; the standings count the pair once", async () => {
    const counter = await bundleFixture("hook-counter");
    const bots: string[] = [];
    for (const label of ["dup-a", "dup-b"]) {
      const { token } = await fundedDeveloper(server.api, { label });
      const bot = await createBot(server, token, label);
      await storeVersion(server.database.db, bot.botId, 1, counter);
      const entered = await server.api("POST", "/api/ladder/entries", { token, body: { botId: bot.botId } });
      expect(entered.status).toBe(201);
      // Hosted: active with no socket (a remote bot would be paused BOT_OFFLINE); the first waits for the second (NO_OPPONENT, issue 33).
      expect(entered.body).toMatchObject({ status: "active", ...(bots.length === 0 ? { reason: "NO_OPPONENT", opponentsAvailable: 0 } : { reason: null }) });
      bots.push(bot.botId);
    }

    // The first pair whose two copies have both completed.
    const pair = await until(
      () =>
        queryRows<{ id: string; twin: string; copy: number; table_id: string; twin_table: string; config: { duplicate?: boolean; maxHands: number }; hands_played: number; twin_hands: number }>(
          server.database.db,
          sql`select m.id, m.twin_match_id as twin, t.copy, t.id as table_id, t.twin_id as twin_table, ${tableConfigOf("t")} as config, m.hands_played, tm.hands_played as twin_hands
              from matches m join tables t on t.id = m.table_id join matches tm on tm.id = m.twin_match_id
              where t.ladder = 'heads-up' and t.copy = 1 and m.status = 'completed' and tm.status = 'completed' order by m.ended_at limit 1`,
        ).then((rows) => (rows.length > 0 ? rows[0] : null)),
      60_000,
      "a completed ladder pair",
    );
    expect(pair.config.duplicate).toBe(true);
    // Each copy is a whole ladder match of LADDER_HANDS hands.
    expect([pair.hands_played, pair.twin_hands]).toEqual([6, 6]);
    const players = await queryRows<{ match_id: string; bot_id: string; position: number; code_version: number }>(
      server.database.db,
      sql`select match_id, bot_id, position, code_version from match_players where match_id in (${pair.id}, ${pair.twin}) order by match_id, position`,
    );
    const seatsOf = (matchId: string) => players.filter((p) => p.match_id === matchId).map((p) => p.bot_id);
    expect([...seatsOf(pair.id)].sort()).toEqual([...bots].sort());
    // Copy 2 seats each bot at the other position.
    expect(seatsOf(pair.twin)).toEqual([...seatsOf(pair.id)].reverse());
    expect(players.every((p) => p.code_version === 1)).toBe(true);
    // Rated once (two developers' bots): the ratings applier numbers one copy of the pair, the one recorded second.
    await server.app.services.ratingsApplier.settled();
    const rated = await queryRows<{ id: string; rated_seq: number | null }>(server.database.db, sql`select id, rated_seq from matches where id in (${pair.id}, ${pair.twin})`);
    expect(rated.filter((r) => r.rated_seq !== null)).toHaveLength(1);

    // Each copy's context heard only its own match from its start: at hand h the hook has counted h hands (a
    // context shared by the copies, or the old odd/even copies of one match, would say more, or ceil(h / 2)).
    let checked = 0;
    for (const botId of bots) {
      for (const matchId of [pair.id, pair.twin]) {
        const logs = await queryRows<{ hand_number: number; message: string }>(
          server.database.db,
          sql`select hand_number, message from hosted_logs where bot_id = ${botId} and match_id = ${matchId} and kind = 'log' order by id`,
        );
        const counts = new Map<number, number>();
        for (const row of logs) counts.set(row.hand_number, Number(/^hands=(\d+) /.exec(row.message)![1]));
        expect([...counts.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
        for (const [hand, counted] of counts) expect(counted).toBe(hand);
        checked++;
      }
    }
    expect(checked).toBe(4);

    // A pair counts once: the standings count the pairs with a completed copy. The ladder plays on meanwhile, so
    // the count is bracketed by the same count read just before and just after the standings.
    const pairsOf = async (botId: string) => {
      const [{ pairs }] = await queryRows<{ pairs: number }>(
        server.database.db,
        sql`select count(distinct least(m.id, m.twin_match_id))::int as pairs from match_players mp join matches m on m.id = mp.match_id where mp.bot_id = ${botId} and m.status = 'completed'`,
      );
      return pairs;
    };
    const pairsBefore = await Promise.all(bots.map(pairsOf));
    const standings = (await server.api("GET", "/api/ladder?format=heads-up")).body as any[];
    const pairsAfter = await Promise.all(bots.map(pairsOf));
    for (const [i, botId] of bots.entries()) {
      const row = standings.find((r) => r.botId === botId);
      expect(row.matchesPlayed).toBeGreaterThanOrEqual(Math.max(1, pairsBefore[i]));
      expect(row.matchesPlayed).toBeLessThanOrEqual(pairsAfter[i]);
      expect(row.duplicateMatches).toBe(row.matchesPlayed);
    }
    // Hosting is public by design: anyone reads it on the bot (never its code).
    for (const botId of bots) expect((await server.api("GET", `/api/bots/${botId}`)).body).toMatchObject({ botId, hosted: true });
    // The books balance exactly, the ladder still playing (every move of money is one transaction).
    const audit = await auditLedger(server.database.db);
    expect(audit.problems).toEqual([]);
  });
});
