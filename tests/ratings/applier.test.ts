import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createApp, type App } from "../../src/app";
import { queryRows } from "../../src/db";
import { rebuildRatings } from "../../src/modules/ratings/store";
import { harnessFor, testConfig, useHarness } from "../support/app";
import type { ApiCall } from "../support/developers";
import { developerWithBot, playTable, type PlayerBot } from "../support/rated-tables";

setDefaultTimeout(120_000);

// Both appliers poll often, so they race for the same pending matches.
const h = useHarness("ratings_applier", { RATINGS_POLL_MS: "15" });
let other: App;
let otherCall: ApiCall;

beforeAll(() => {
  other = createApp({ db: h.database.db, dbKind: h.database.kind, config: testConfig({ DATABASE_URL: h.testDb.url, HOST_ID: "other", RATINGS_POLL_MS: "15" }), jwtSecret: "test-secret", clock: h.clock, log: () => {} });
  otherCall = harnessFor(other, h.database, h.clock, h.config).call;
  h.app.services.ratingsApplier.start();
  other.services.ratingsApplier.start();
});
afterAll(async () => {
  await other.services.host.shutdown();
  await other.services.ratingsApplier.stop();
  await other.services.accounts.stopAll();
});

const appliers = () => [h.app.services.ratingsApplier, other.services.ratingsApplier];
const settledEverywhere = () => Promise.all(appliers().flatMap((a) => [a.settled(), a.settled()]));
const storedRatings = () => queryRows<Record<string, unknown>>(h.database.db, sql`select * from bot_ratings order by bot_id`);

/** Each rated match (every match of this file) applied exactly once: a rated_seq of its own, nothing pending, and every player's count of matches from the records. */
async function expectEachAppliedOnce(matchIds: string[]) {
  const rows = await queryRows<{ id: string; rated_seq: string | null; rating_pending: boolean }>(h.database.db, sql`select id, rated_seq::text, rating_pending from matches where status = 'completed'`);
  expect(rows.map((r) => r.id).sort()).toEqual([...matchIds].sort());
  expect(rows.filter((r) => r.rating_pending)).toEqual([]);
  expect(new Set(rows.map((r) => r.rated_seq)).size).toBe(matchIds.length);
  expect(rows.every((r) => r.rated_seq !== null)).toBe(true);
  const counts = await queryRows<{ bot_id: string; applied: number; recorded: number }>(
    h.database.db,
    sql`select r.bot_id, r.matches_played as applied, (select count(*)::int from match_players p join matches m on m.id = p.match_id where p.bot_id = r.bot_id and m.rated_seq is not null) as recorded
        from bot_ratings r order by r.bot_id`,
  );
  expect(counts.length).toBeGreaterThan(0);
  for (const c of counts) expect([c.bot_id, c.applied]).toEqual([c.bot_id, c.recorded]);
  expect(counts.reduce((sum, c) => sum + c.applied, 0)).toBe(2 * matchIds.length);
}

describe("the ratings applier on two nodes sharing one database", () => {
  let matchIds: string[];

  beforeAll(async () => {
    const strategies = ["raiser", "caller", "tight", "random"];
    const mine: PlayerBot[] = [], theirs: PlayerBot[] = [];
    for (const [i, strategy] of strategies.entries()) {
      mine.push(await developerWithBot(h.call, `mine${i}`, strategy));
      theirs.push(await developerWithBot(otherCall, `theirs${i}`, strategy));
    }
    // Each node hosts its own heads-up matches, all at once; each node's applier is nudged by its own and polls for the other's.
    for (let round = 0; round < 2; round++) {
      await Promise.all([
        playTable(h.call, [mine[0], mine[1]], { maxHands: 25 }),
        playTable(h.call, [mine[2], mine[3]], { maxHands: 25 }),
        playTable(otherCall, [theirs[0], theirs[1]], { maxHands: 25 }),
        playTable(otherCall, [theirs[2], theirs[3]], { maxHands: 25 }),
      ]);
      await Promise.all([h.app.services.host.settled(), other.services.host.settled()]);
    }
    await settledEverywhere();
    matchIds = (await queryRows<{ id: string }>(h.database.db, sql`select id from matches where status = 'completed'`)).map((r) => r.id);
  });

  test("matches recorded on both nodes: each applied exactly once, and the rebuild gives the same numbers bit for bit", async () => {
    expect(matchIds).toHaveLength(8);
    await expectEachAppliedOnce(matchIds);
    const applied = await storedRatings();
    expect(applied).toHaveLength(8);
    expect((await rebuildRatings(h.database.db)).matches).toBe(8);
    expect(await storedRatings()).toEqual(applied);
  });

  test("a backlog both appliers race for: still each match once, in record order", async () => {
    // Every match pending again at once, as after an outage of the appliers.
    await h.database.db.execute(sql`update matches set rating_pending = true, rated_seq = null`);
    await h.database.db.execute(sql`delete from bot_ratings`);
    await settledEverywhere();
    await expectEachAppliedOnce(matchIds);
    const order = await queryRows<{ id: string }>(h.database.db, sql`select id from matches order by rated_seq`);
    const recordOrder = await queryRows<{ id: string }>(h.database.db, sql`select id from matches order by ended_at, id`);
    expect(order.map((r) => r.id)).toEqual(recordOrder.map((r) => r.id));
    const applied = await storedRatings();
    await rebuildRatings(h.database.db);
    expect(await storedRatings()).toEqual(applied);
  });

  test("a match whose histories the adjustment rejects is left out, and the matches after it are applied", async () => {
    const [broken, next] = (await queryRows<{ id: string }>(h.database.db, sql`select id from matches order by ended_at, id`)).map((r) => r.id);
    // Its stored hands no longer decode (a byte that is no decision): the worker's decoding rejects the match.
    expect((await queryRows<{ n: number }>(h.database.db, sql`update hand_chunks set data = '\\x0100ee'::bytea where match_id = ${broken} returning 1 as n`)).length).toBeGreaterThan(0);
    await h.database.db.execute(sql`update matches set rating_pending = true, rated_seq = null where id in (${broken}, ${next})`);
    const before = await storedRatings();
    await settledEverywhere();
    const rows = await queryRows<{ id: string; rated_seq: string | null; rating_pending: boolean }>(h.database.db, sql`select id, rated_seq::text, rating_pending from matches where id in (${broken}, ${next}) order by ended_at, id`);
    expect(rows.map((r) => [r.id, r.rating_pending, r.rated_seq === null])).toEqual([
      [broken, false, true],
      [next, false, false],
    ]);
    // The next match was applied once more on top of the ratings (this test re-queued it), the broken one not at all.
    const after = await storedRatings();
    expect(after.reduce((sum, r) => sum + Number(r.matches_played), 0)).toBe(before.reduce((sum, r) => sum + Number(r.matches_played), 0) + 2);
  });
});
