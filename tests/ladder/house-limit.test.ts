/**
 * The house's daily limit on a real server (docs/LADDER.md, "The house's bankroll"): a developer
 * whose bots have won LADDER_HOUSE_DAILY_LIMIT from the house's bots over the last 24 h is not paired
 * with the house until enough of those matches age out, and its entry says so, with when it changes.
 *
 * Which developer wins first is chance, so eight developers' raisers play the house with a limit of
 * 1 chip: the first to be ahead is the one checked. The others then leave, so the house is its only
 * possible opponent: it must wait (NO_OPPONENT, HOUSE_DAILY_LIMIT) and get no table.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { HOUSE_LIMIT_WINDOW_MS, limitLiftsAt } from "../../src/modules/ladder/house";
import { fundedDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(120_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("ladder_house_limit", { LADDER_HANDS: "4", LADDER_PAIR_EVERY_MS: "50", LADDER_BUY_IN: "200", LADDER_HOUSE_DAILY_LIMIT: "1" });
});
afterAll(() => server.close());

type Entry = { botId: string; status: string; reason: string | null; opponentsAvailable: number; houseUnavailable: { reason: string; until: string; won: number | null } | null };

test("a developer past the house's daily limit is not paired with the house; its entry says how much it won and when the house meets it again", async () => {
  const players = await Promise.all(
    Array.from({ length: 8 }, async (_, i) => {
      const dev = await fundedDeveloper(server.api, { label: `winner-${i}` });
      const bot = await createBot(server, dev.token, `raiser-${i}`, "raiser");
      expect((await server.api("POST", "/api/ladder/entries", { token: dev.token, body: { botId: bot.botId } })).status).toBe(201);
      return { ...dev, botId: bot.botId };
    }),
  );
  const entryOf = async (p: (typeof players)[number]) => ((await server.api("GET", "/api/me/ladder", { token: p.token })).body as Entry[])[0];
  const winner = await until(async () => {
    for (const p of players) if ((await entryOf(p))?.houseUnavailable?.reason === "HOUSE_DAILY_LIMIT") return p;
    return null;
  }, 60_000, "a developer past the house's daily limit");
  for (const p of players) if (p !== winner) expect((await server.api("DELETE", `/api/ladder/entries/${p.botId}`, { token: p.token })).status).toBe(200);

  const house = (await queryRows<{ id: string }>(server.database.db, sql`select id from developers where email = 'house@ladder.invalid'`))[0].id;
  const seatsOf = async () => (await queryRows<{ n: number }>(server.database.db, sql`select count(*)::int as n from seats where bot_id = ${winner.botId}`))[0].n;
  const seated = async () => (await server.app.services.ladder.withFacts({ botId: winner.botId })).some((e) => e.facts.seated);
  // Settled: not seated, still past the limit, and no new seat over a few of the matchmaker's reads of the limit (every 2 s).
  let stable = false;
  for (let attempt = 0; attempt < 10 && !stable; attempt++) {
    await until(async () => !(await seated()) && (await entryOf(winner)).houseUnavailable?.reason === "HOUSE_DAILY_LIMIT", 30_000, "the winner free and past the limit");
    const before = await seatsOf();
    await Bun.sleep(3_000);
    stable = (await seatsOf()) === before && (await entryOf(winner)).houseUnavailable?.reason === "HOUSE_DAILY_LIMIT";
  }
  expect(stable).toBe(true);

  const entry = await entryOf(winner);
  expect(entry).toMatchObject({ status: "active", reason: "NO_OPPONENT", opponentsAvailable: 0, houseUnavailable: { reason: "HOUSE_DAILY_LIMIT" } });
  // What it won and until when, from its matches with the house over the last day.
  const matches = await queryRows<{ at: Date; profit: string }>(
    server.database.db,
    sql`select m.ended_at as at, sum(o.profit)::bigint as profit from matches m join match_players o on o.match_id = m.id join bots ob on ob.id = o.bot_id
        where ob.developer_id = ${winner.developerId} and m.status = 'completed'
          and exists (select 1 from match_players h join bots hb on hb.id = h.bot_id where h.match_id = m.id and hb.developer_id = ${house})
        group by m.id, m.ended_at order by m.ended_at`,
  );
  const history = matches.map((m) => ({ at: new Date(m.at).getTime(), profit: Number(m.profit) }));
  const won = history.reduce((sum, m) => sum + m.profit, 0);
  expect(won).toBeGreaterThanOrEqual(1);
  expect(entry.houseUnavailable!.won).toBe(won);
  expect(Date.parse(entry.houseUnavailable!.until)).toBe(limitLiftsAt(history, 1)!);
  expect(Date.parse(entry.houseUnavailable!.until)).toBeLessThanOrEqual(Date.now() + HOUSE_LIMIT_WINDOW_MS);
  // The CLI and the bot page's owner view say it in words (ladder/words.ts): tested with the CLI in tests/cli/ladder.test.ts.
  expect((await server.api("DELETE", `/api/ladder/entries/${winner.botId}`, { token: winner.token })).status).toBe(200);
  expect((await auditLedger(server.database.db)).problems).toEqual([]);
});
