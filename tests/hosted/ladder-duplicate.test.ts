import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { fundedDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { storeVersion } from "./play-support";
import { bundleFixture } from "./support";

setDefaultTimeout(90_000);

// No house bots: the two hosted bots can only meet each other.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("hosted_ladder", { LADDER_HANDS: "6", LADDER_PAIR_EVERY_MS: "50", LADDER_HOUSE_BOTS: "" });
});
afterAll(() => server.close());

describe("two hosted bots on the ladder play duplicate", () => {
  test("always available without a socket; paired heads-up, their match is duplicate and rated; each copy has fresh contexts (a hand counter restarts); the standings count duplicate matches", async () => {
    const counter = await bundleFixture("hook-counter");
    const bots: string[] = [];
    for (const label of ["dup-a", "dup-b"]) {
      const { token } = await fundedDeveloper(server.api, { label });
      const bot = await createBot(server, token, label);
      await storeVersion(server.database.db, bot.botId, 1, counter);
      const entered = await server.api("POST", "/api/ladder/entries", { token, body: { botId: bot.botId } });
      expect(entered.status).toBe(201);
      // Hosted: active with no socket (a remote bot would be paused BOT_OFFLINE).
      expect(entered.body).toMatchObject({ status: "active", reason: null });
      bots.push(bot.botId);
    }

    const [match] = await until(
      () =>
        queryRows<{ id: string; config: { duplicate?: boolean; maxHands: number }; hands_played: number }>(
          server.database.db,
          sql`select m.id, t.config, m.hands_played from matches m join tables t on t.id = m.table_id where t.ladder = 'heads-up' and m.status = 'completed' order by m.ended_at limit 1`,
        ).then((rows) => (rows.length > 0 ? rows : null)),
      60_000,
      "a completed ladder match",
    );
    expect(match.config.duplicate).toBe(true);
    expect(match.hands_played).toBe(6);
    const players = await queryRows<{ bot_id: string; code_version: number }>(server.database.db, sql`select bot_id, code_version from match_players where match_id = ${match.id}`);
    expect(players.map((p) => p.bot_id).sort()).toEqual([...bots].sort());
    expect(players.every((p) => p.code_version === 1)).toBe(true);
    // Rated: two developers' bots (the ratings applier numbers the match once it has applied it).
    await server.app.services.ratingsApplier.settled();
    const [rated] = await queryRows<{ rated_seq: number | null }>(server.database.db, sql`select rated_seq from matches where id = ${match.id}`);
    expect(rated.rated_seq).not.toBeNull();

    // Copy 1 plays the odd hands, copy 2 the even ones, each in its own context since the match began:
    // at hand h the copy's hook has counted ceil(h / 2) hands (one shared context would say h).
    for (const botId of bots) {
      const logs = await queryRows<{ hand_number: number; message: string }>(
        server.database.db,
        sql`select hand_number, message from hosted_logs where bot_id = ${botId} and match_id = ${match.id} and kind = 'log' order by id`,
      );
      const counts = new Map<number, number>();
      for (const row of logs) counts.set(row.hand_number, Number(/^hands=(\d+) /.exec(row.message)![1]));
      expect([...counts.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
      for (const [hand, counted] of counts) expect(counted).toBe(Math.ceil(hand / 2));
      expect(counts.get(2)).toBe(1);
    }

    const standings = (await server.api("GET", "/api/ladder?format=heads-up")).body as any[];
    for (const botId of bots) {
      const row = standings.find((r) => r.botId === botId);
      expect(row.matchesPlayed).toBeGreaterThanOrEqual(1);
      expect(row.duplicateMatches).toBe(row.matchesPlayed);
    }
    const audit = await auditLedger(server.database.db);
    expect(audit.problems).toEqual([]);
  });
});
