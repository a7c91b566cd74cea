/**
 * A duplicate match is rated once, as one match, when both its copies are recorded (issue 32,
 * match-host/match-finish.ts `ratingPending`, ratings/store.ts `recordedMatchText`): ranked by each
 * bot's result over both copies; a copy whose twin was aborted is rated alone; `ratings:rebuild`
 * reproduces it bit for bit.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { tables as tablesTable } from "../../src/db/schema";
import { type PairSeatRefs } from "../../src/modules/credits/ledger";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
const { buyInPairInDb } = SEAT_LEDGER;
import { finishMatches } from "../../src/modules/match-host/match-finish";
import { abortTable, emptyBatch, markMatchStarted, type MatchOutcome, type MatchPlayerRecord } from "../../src/modules/match-host/persistence";
import { matchResultsOf } from "../../src/modules/ratings/luck";
import { rebuildRatings, recordedMatch } from "../../src/modules/ratings/store";
import { useHarness } from "../support/app";
import { developerWithBot } from "../support/rated-tables";

setDefaultTimeout(120_000);

const h = useHarness("duplicate_pair_ratings");

const storedRatings = () => queryRows<Record<string, unknown>>(h.database.db, sql`select * from bot_ratings order by bot_id`);
const matchRows = (ids: string[]) =>
  queryRows<{ id: string; status: string; rating_pending: boolean; rated_seq: string | null }>(
    h.database.db,
    sql`select id, status, rating_pending, rated_seq::text from matches where id = any(${sql.param(ids)}::text[]) order by id`,
  );

describe("a duplicate pair is rated once", () => {
  test("a ladder pair of two developers' bots: one rated match over both copies' hands, and the rebuild gives the same numbers bit for bit", async () => {
    const [a, b] = [await developerWithBot(h.call, "pair-raiser", "raiser"), await developerWithBot(h.call, "pair-caller", "caller")];
    const house = await h.fundedDeveloper();
    const config = { buyIn: 500, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 30, actionTimeoutMs: 2000, duplicate: true };
    const first = await h.app.services.tables.createLadderTable("heads-up", house.developerId, config);
    for (const p of [a, b]) expect((await h.call("POST", `/api/tables/${first}/join`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
    await h.app.services.host.settled();
    await h.app.services.ratingsApplier.settled();
    const twin = (await h.call("GET", `/api/tables/${first}`)).body.twinTableId;
    const ids = [(await h.call("GET", `/api/tables/${first}`)).body.matchId, (await h.call("GET", `/api/tables/${twin}`)).body.matchId];
    const rows = await matchRows(ids);
    expect(rows.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect(rows.filter((r) => r.rated_seq !== null)).toHaveLength(1);
    expect(rows.filter((r) => r.rating_pending)).toEqual([]);
    const rated = rows.find((r) => r.rated_seq !== null)!.id;
    // The rated one reads both copies' hands, copy 1's first.
    const both = await recordedMatch(h.database.db, rated);
    const hands = await queryRows<{ n: number }>(h.database.db, sql`select count(*)::int as n from hands where match_id = any(${sql.param(ids)}::text[])`);
    expect(both.hands).toHaveLength(hands[0].n);
    const expected = matchResultsOf(both.botIds, both.hands);
    const ratings = await storedRatings();
    expect(ratings).toHaveLength(2);
    for (const result of expected) {
      const row = ratings.find((r) => r.botId === result.botId || r.bot_id === result.botId)!;
      expect(row.matches_played ?? row.matchesPlayed).toBe(1);
      expect(row.hands_played ?? row.handsPlayed).toBe(result.hands.count);
      expect(row.sum_bb ?? row.sumBb).toBe(result.hands.sumBb);
    }
    // Zero-sum over the pair: what one bot won over both copies the other lost.
    expect(expected[0].hands.sumBb + expected[1].hands.sumBb).toBeCloseTo(0, 9);
    expect((await rebuildRatings(h.database.db)).matches).toBeGreaterThanOrEqual(1);
    expect(await storedRatings()).toEqual(ratings);
    await h.expectAuditClean();
  });
});

describe("when a copy is marked for the ratings (the finish transaction locks both copies' rows)", () => {
  const at = (ms: number) => new Date(h.clock.now() + ms);

  /** Two developers' bots seated at both copies (the test moves the money: one pair buy-in each), whose matches name each other. */
  async function startedPair(label: string) {
    const [x, y] = [await developerWithBot(h.call, `${label}-x`, "caller"), await developerWithBot(h.call, `${label}-y`, "caller")];
    const ids = [`m_${label}_1`, `m_${label}_2`];
    // Two twin tables' rows (no node hosts them: the test writes what their host would).
    const config = { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 10, actionTimeoutMs: 2000, duplicate: true };
    const tableIds = [`tbl_${label}_1`, `tbl_${label}_2`];
    const creator = (await h.call("GET", "/api/me", { token: x.token })).body.developerId;
    await h.database.db.insert(tablesTable).values(
      tableIds.map((id, i) => ({ id, createdBy: creator, config, status: "waiting" as const, hostId: "elsewhere", createdAt: at(0), twinId: tableIds[1 - i], copy: i + 1 })),
    );
    const tables = tableIds.map((tableId) => ({ tableId, config }));
    const seats: Array<Array<MatchPlayerRecord & { seatId: number }>> = [[], []];
    for (const [position, bot] of [x, y].entries()) {
      const developerId = (await h.call("GET", "/api/me", { token: bot.token })).body.developerId;
      const refs: PairSeatRefs = [
        { botId: bot.botId, tableId: tables[0].tableId, position },
        { botId: bot.botId, tableId: tables[1].tableId, position: 1 - position },
      ];
      const { seatIds } = await buyInPairInDb(h.database.db, developerId, 1000, refs, at(0));
      for (const copy of [0, 1]) {
        seats[copy].push({ botId: bot.botId, developerId, seatId: seatIds[copy], position: refs[copy].position!, buyIn: 1000, finalChips: 1000, handsPlayed: 0, handsWon: 0 });
      }
    }
    const copies = [];
    for (const [i, matchId] of ids.entries()) {
      await markMatchStarted(h.database.db, tables[i].tableId, matchId, at(0), { deckCommitment: null, deckSecretSealed: null, seatBots: [null, null], handsReserved: 0, twinMatchId: ids[1 - i] });
      copies.push({ tableId: tables[i].tableId as string, matchId, seats: seats[i], twinMatchId: ids[1 - i] });
    }
    return copies;
  }

  const finish = (copy: Awaited<ReturnType<typeof startedPair>>[number]) => {
    const outcome: MatchOutcome = {
      matchId: copy.matchId,
      tableId: copy.tableId,
      handsPlayed: 0,
      voidedHands: [],
      startedAt: at(0),
      endedAt: at(5),
      players: copy.seats,
      finalClosures: copy.seats.map((s) => ({ seatId: s.seatId, developerId: s.developerId, botId: s.botId, chips: 1000 })),
      ranked: true,
      rated: true,
      twinMatchId: copy.twinMatchId,
    };
    return { outcome, lastBatch: emptyBatch(copy.tableId, copy.matchId) };
  };

  test("one after the other: the copy recorded second is marked; both in one transaction: exactly one; at once in two: exactly one", async () => {
    const [one, two] = await startedPair("seq");
    await finishMatches(h.database.db, [finish(one)]);
    expect((await matchRows([one.matchId])).map((r) => r.rating_pending)).toEqual([false]);
    await finishMatches(h.database.db, [finish(two)]);
    expect((await matchRows([one.matchId, two.matchId])).map((r) => [r.id, r.rating_pending])).toEqual([[one.matchId, false], [two.matchId, true]]);

    const together = await startedPair("one_tx");
    await finishMatches(h.database.db, together.map(finish));
    expect((await matchRows(together.map((c) => c.matchId))).filter((r) => r.rating_pending)).toHaveLength(1);

    const racing = await startedPair("two_tx");
    await Promise.all(racing.map((copy) => finishMatches(h.database.db, [finish(copy)])));
    expect((await matchRows(racing.map((c) => c.matchId))).filter((r) => r.rating_pending)).toHaveLength(1);
    await h.expectAuditClean();
  });

  test("a copy whose twin is aborted is rated alone, on its own hands", async () => {
    const [one, two] = await startedPair("abort");
    await finishMatches(h.database.db, [finish(one)]);
    expect((await matchRows([one.matchId]))[0].rating_pending).toBe(false);
    await abortTable(h.database.db, two.tableId, at(6));
    const rows = await matchRows([one.matchId, two.matchId]);
    expect(rows.map((r) => [r.status, r.rating_pending])).toEqual([["completed", true], ["aborted", false]]);
    // Its twin's hands stay out of its rating.
    await h.database.db.execute(sql`insert into hands_legacy (match_id, number, history, created_at) values (${two.matchId}, 1, '{"handNumber": 1}'::json, now())`);
    expect((await recordedMatch(h.database.db, one.matchId)).hands).toEqual([]);
    await h.expectAuditClean();
  });
});
