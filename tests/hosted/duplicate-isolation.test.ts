/**
 * Issue 32, items 1 and 3, on a real server with hosted bots uploaded through the API: the exploit that
 * read the other copy's result from its own stack (tests/hosted/fixtures/stack-reader.ts: +9,980 in
 * even hands over 10 ladder matches of the one-match model) plays duplicate pairs against a calling
 * station, on a private duplicate table and on the ladder. Each copy is a match of its own, so what it
 * "knows" is the result of another deal of its own copy: it must win no more than chance on those hands.
 *
 * The chance bound. Its verdict comes from a different deal than the hand it acts on; decks are
 * independent per hand, so its result X on a "known" hand is independent of the verdict's truth.
 * Strong: it raises, the station calls to showdown — a random hand against a random hand, E[X] = 0 by
 * symmetry; weak: it folds (−a blind) or checks, E[X] ≤ 0. So Σ X over n known hands has mean ≤ 0 and,
 * the hands independent and bounded (min-raises: a few dozen chips), a spread of √(Σ E[X²]), estimated
 * by √(Σ X²) (an over-estimate: it includes the mean). The test asserts Σ X ≤ 3·√(Σ X²): a one-sided
 * 3σ bound, exceeded by chance about 0.13 % of the time. Likewise its showdown record on "strong" hands:
 * wins + ties/2 ≤ n/2 + 3·√n/2. The old model's leak broke both by far: every strong hand won (a seat
 * wins a hand's showdown in both copies, which the test checks), every weak hand saved its chips.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { fundedDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { endedPair, fixtureSource, handResults, knownHands, uploadOverHttp, type KnownHands } from "./duplicate-support";

setDefaultTimeout(240_000);

const HANDS = 60;
let server: TestServer;
beforeAll(async () => {
  // Deep stacks (200 big blinds) and no house bots: on the ladder the exploiter meets only the station.
  server = await startTestServer("duplicate_isolation", { LADDER_HANDS: String(HANDS), LADDER_PAIR_EVERY_MS: "50", LADDER_HOUSE_BOTS: "", LADDER_BUY_IN: "2000", DEFAULT_BUY_IN: "2000" });
});
afterAll(() => server.close());

async function hostedBot(token: string, name: string, fixture: string): Promise<string> {
  const { botId } = await createBot(server, token, name);
  await uploadOverHttp(server.url, token, botId, await fixtureSource(fixture));
  return botId;
}

function expectNoEdge(known: KnownHands, minimum: number) {
  expect(known.count).toBeGreaterThanOrEqual(minimum);
  expect(known.chips).toBeLessThanOrEqual(3 * Math.sqrt(known.sumSquares));
  const { won, tied, played } = known.strong;
  expect(played).toBeGreaterThanOrEqual(minimum / 4);
  expect(won + tied / 2).toBeLessThanOrEqual(played / 2 + (3 * Math.sqrt(played)) / 2);
  // The information the old model leaked is real: a seat that wins a showdown in one copy wins it in the other.
  expect(known.bothShown.compared).toBeGreaterThan(0);
  expect(known.bothShown.same).toBe(known.bothShown.compared);
}

describe("a bot that plays on its stack differences in duplicate pairs wins no more than chance", () => {
  test("on a private duplicate table (one developer's two hosted bots)", async () => {
    const { token } = await fundedDeveloper(server.api, { label: "private-dup" });
    const exploiter = await hostedBot(token, "stack-reader", "stack-reader");
    const station = await hostedBot(token, "station", "calling-station");
    const pairs: Array<[string, string]> = [];
    for (let round = 0; round < 3; round++) {
      const table = await server.api("POST", "/api/tables", { token, body: { duplicate: true, maxPlayers: 2, maxHands: HANDS, buyIn: 2000 } });
      expect(table.status).toBe(201);
      for (const botId of [exploiter, station]) expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId } })).status).toBe(201);
      pairs.push(await until(() => endedPair(server.database.db, table.body.tableId), 120_000, "both copies of the pair"));
    }
    const known = await knownHands(server.database.db, exploiter, pairs);
    expectNoEdge(known, 60);
    expect((await auditLedger(server.database.db)).problems).toEqual([]);
  });

  test("on the ladder (two developers, both bots hosted: every pairing is a duplicate pair)", async () => {
    const exploiterDev = await fundedDeveloper(server.api, { label: "exploiter" });
    const victimDev = await fundedDeveloper(server.api, { label: "victim" });
    const exploiter = await hostedBot(exploiterDev.token, "ladder-reader", "stack-reader");
    const station = await hostedBot(victimDev.token, "ladder-station", "calling-station");
    for (const [dev, botId] of [[exploiterDev, exploiter], [victimDev, station]] as const) {
      expect((await server.api("POST", "/api/ladder/entries", { token: dev.token, body: { botId } })).status).toBe(201);
    }
    const completedPairs = () =>
      queryRows<{ one: string; two: string }>(
        server.database.db,
        sql`select m.id as one, m.twin_match_id as two from matches m join tables t on t.id = m.table_id join matches tm on tm.id = m.twin_match_id
            join match_players p on p.match_id = m.id
            where t.ladder = 'heads-up' and t.copy = 1 and m.status = 'completed' and tm.status = 'completed' and p.bot_id = ${exploiter}`,
      );
    await until(async () => (await completedPairs()).length >= 3, 150_000, "three completed ladder pairs");
    // Off the ladder: once a pairing round has read the entries without them (rounds run one at a
    // time, so none seats them after it), the pairs in play end, then the books are read.
    let emptyRounds = 0;
    const matchmaker = server.app.services.matchmaker;
    const observe = matchmaker.observe;
    matchmaker.observe = (report) => {
      observe(report);
      if (report.entries.length === 0) emptyRounds++;
    };
    for (const [dev, botId] of [[exploiterDev, exploiter], [victimDev, station]] as const) await server.api("DELETE", `/api/ladder/entries/${botId}`, { token: dev.token });
    await until(async () => emptyRounds > 0, 30_000, "a pairing round without the entries");
    await until(
      async () => (await queryRows(server.database.db, sql`select 1 from seats where bot_id in (${exploiter}, ${station}) and status = 'open'`)).length === 0,
      120_000,
      "the ladder's last pairs to end",
    );
    const pairs = (await completedPairs()).map((row): [string, string] => [row.one, row.two]);
    const known = await knownHands(server.database.db, exploiter, pairs);
    expectNoEdge(known, 60);
    // The victim's developer is not drained: over every hand of every pair the exploiter played, the books
    // (its balance) and the histories agree, and what it won stays within the same chance bound.
    const played = (await queryRows<{ match_id: string }>(server.database.db, sql`select match_id from match_players where bot_id = ${exploiter}`)).map((r) => r.match_id);
    expect(played.length).toBe(2 * pairs.length);
    const all = await handResults(server.database.db, exploiter, played);
    const balances = await Promise.all([exploiterDev, victimDev].map(async (dev) => (await server.api("GET", "/api/me/balance", { token: dev.token })).body.balance as number));
    expect(balances).toEqual([10_000 + all.chips, 10_000 - all.chips]);
    expect(all.chips).toBeLessThanOrEqual(3 * Math.sqrt(all.sumSquares));
    // Rated once per pair (two developers' bots): one copy of each.
    const [rated] = await queryRows<{ n: number }>(
      server.database.db,
      sql`select count(*)::int as n from matches where id = any(${sql.param(played)}::text[]) and (rated_seq is not null or rating_pending)`,
    );
    expect(rated.n).toBe(pairs.length);
    expect((await auditLedger(server.database.db)).problems).toEqual([]);
  });
});
