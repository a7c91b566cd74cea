/**
 * Matches that end together are written in ONE transaction (src/modules/match-host/match-finish.ts):
 * the statements take every match's rows at once, so a bot that busted in one and won the other
 * must still count twice in its stats and its rating; and one match that cannot be written must
 * not take the others down with it (the journal then writes each alone).
 */
import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
const { buyInInDb } = SEAT_LEDGER;
import { HandJournal } from "../../src/modules/match-host/journal";
import { finishMatches } from "../../src/modules/match-host/match-finish";
import { markMatchStarted, writeBatches, type HandRecord, type MatchOutcome, type MatchPlayerRecord, type TableBatch } from "../../src/modules/match-host/persistence";
import { DeckSeal } from "../../src/modules/match-host/deck-seal";
import type { StoredHand } from "../../src/poker/hand-record";
import { rowsOf } from "../campaigns/support";
import { useHarness } from "../support/app";

const h = useHarness("match_finish");

interface Seated {
  botId: string;
  developerId: string;
  seatId: number;
  position: number;
}

const at = (ms: number) => new Date(h.clock.now() + ms);

async function developerWithBot(name: string) {
  const dev = await h.fundedDeveloper();
  const bot = (await h.call("POST", "/api/bots", { token: dev.token, body: { name, strategy: "caller" } })).body;
  return { ...dev, botId: bot.botId as string };
}

/** A waiting table of three seats nobody sits at through the service (the test moves the money itself). */
async function emptyTable(token: string): Promise<{ tableId: string; config: never }> {
  return (await h.call("POST", "/api/tables", { token, body: { maxPlayers: 3, buyIn: 1000 } })).body;
}

async function sit(bot: { botId: string; developerId: string }, tableId: string, position: number): Promise<Seated> {
  const { seatId } = await buyInInDb(h.database.db, bot.developerId, 1000, { botId: bot.botId, tableId, position }, at(0));
  return { botId: bot.botId, developerId: bot.developerId, seatId, position };
}

function player(seat: Seated, finalChips: number): MatchPlayerRecord {
  return {
    botId: seat.botId,
    developerId: seat.developerId,
    position: seat.position,
    buyIn: 1000,
    finalChips,
    handsPlayed: 3,
    handsWon: finalChips > 1000 ? 2 : 1,
  };
}

const hand = (number: number): HandRecord => ({ number, history: { handNumber: number } as unknown as StoredHand, explicitCards: false });
/** Hands as a batch writes them: the records, and their chunk (its bytes do not matter here, only the numbers it covers). */
const handsOf = (...numbers: number[]) => ({ hands: numbers.map(hand), chunks: [{ first: numbers[0], last: numbers[numbers.length - 1], bytes: new Uint8Array([1, 0]) }] });
const closure = (seat: Seated, chips: number) => ({ seatId: seat.seatId, developerId: seat.developerId, botId: seat.botId, chips });
const emptyLast = (tableId: string, matchId: string): TableBatch => ({ tableId, matchId, hands: [], chunks: [], stacks: new Map(), closures: [] });
const NO_DECK = { deckCommitment: null, deckSecretSealed: null, seatBots: [], handsReserved: 0 };

function outcome(tableId: string, matchId: string, players: MatchPlayerRecord[], finalClosures: MatchOutcome["finalClosures"], endedAtMs: number): MatchOutcome {
  return { matchId, tableId, handsPlayed: 3, voidedHands: [], startedAt: at(0), endedAt: at(endedAtMs), players, finalClosures, ranked: true, rated: true };
}

describe("matches that end together", () => {
  test("one transaction for two matches sharing a bot: its stats count both; both are marked for the ratings applier, which they do not wait for", async () => {
    const [x, y, z] = [await developerWithBot("x"), await developerWithBot("y"), await developerWithBot("z")];
    const [tableA, tableB] = [await emptyTable(x.token), await emptyTable(y.token)];
    // Match A: x busts at hand 2 (its seat closes), y wins.
    const [xA, yA] = [await sit(x, tableA.tableId, 0), await sit(y, tableA.tableId, 1)];
    await markMatchStarted(h.database.db, tableA.tableId, "m_a", at(0), NO_DECK);
    await writeBatches(h.database.db, [{ tableId: tableA.tableId, matchId: "m_a", ...handsOf(1, 2), stacks: new Map([[yA.seatId, 2000]]), closures: [closure(xA, 0)] }], at(1));
    // Match B: x, seated again meanwhile, wins it; z busts at hand 3.
    const [xB, zB] = [await sit(x, tableB.tableId, 0), await sit(z, tableB.tableId, 1)];
    await markMatchStarted(h.database.db, tableB.tableId, "m_b", at(1), NO_DECK);
    await writeBatches(h.database.db, [{ tableId: tableB.tableId, matchId: "m_b", ...handsOf(1, 2, 3), stacks: new Map([[xB.seatId, 2000]]), closures: [closure(zB, 0)] }], at(2));

    await finishMatches(h.database.db, [
      { outcome: outcome(tableA.tableId, "m_a", [player(xA, 0), player(yA, 2000)], [closure(yA, 2000)], 3), lastBatch: { ...emptyLast(tableA.tableId, "m_a"), ...handsOf(3) } },
      { outcome: outcome(tableB.tableId, "m_b", [player(xB, 2000), player(zB, 0)], [closure(xB, 2000)], 4), lastBatch: emptyLast(tableB.tableId, "m_b") },
    ]);

    const matches = await rowsOf<{ id: string; status: string; hands_played: number; rated_seq: string | null; rating_pending: boolean; winners: unknown; duration_ms: string }>(
      h.database.db,
      sql`select id, status, hands_played, rated_seq::text, rating_pending, winners, duration_ms::text from matches where id in ('m_a', 'm_b') order by id`,
    );
    expect(matches.map((m) => [m.id, m.status, m.hands_played, m.winners, Number(m.duration_ms), m.rating_pending, m.rated_seq])).toEqual([
      // The winners are not stored: their players in seat order name them (poker/match-winners.ts `storedWinners`).
      ["m_a", "completed", 3, null, 3, true, null],
      ["m_b", "completed", 3, null, 4, true, null],
    ]);
    expect((await h.call("GET", "/api/matches/m_a")).body.winners).toEqual([{ botId: y.botId, amount: 1000 }]);
    expect((await h.call("GET", "/api/matches/m_b")).body.winners).toEqual([{ botId: x.botId, amount: 1000 }]);
    const [stats] = await rowsOf<Record<string, number | string>>(
      h.database.db,
      sql`select matches_played, matches_won, hands_played, total_buy_ins::int, total_winnings::int, net_chips::int, biggest_win::int, biggest_loss::int
          from bot_stats where bot_id = ${x.botId}`,
    );
    expect(stats).toEqual({ matches_played: 2, matches_won: 1, hands_played: 6, total_buy_ins: 2000, total_winnings: 2000, net_chips: 0, biggest_win: 1000, biggest_loss: -1000 });
    // The ratings are the applier's, after the commit (tests/ratings/applier.test.ts): recording a match leaves them alone.
    expect(await rowsOf(h.database.db, sql`select bot_id from bot_ratings where bot_id in (${x.botId}, ${y.botId}, ${z.botId})`)).toEqual([]);
    const [counts] = await rowsOf<Record<string, number>>(
      h.database.db,
      sql`select (select count(*)::int from hands where match_id in ('m_a', 'm_b')) as hands,
                 (select count(*)::int from match_players where match_id in ('m_a', 'm_b')) as players,
                 (select count(*)::int from seats where table_id in (${tableA.tableId}, ${tableB.tableId}) and status = 'open') as open_seats`,
    );
    expect(counts).toEqual({ hands: 6, players: 4, open_seats: 0 });
    // x lost 1000 in A and won 1000 in B; y won A; z lost B.
    expect((await h.call("GET", "/api/me/balance", { token: x.token })).body.balance).toBe(10_000);
    expect((await h.call("GET", "/api/me/balance", { token: y.token })).body.balance).toBe(11_000);
    expect((await h.call("GET", "/api/me/balance", { token: z.token })).body.balance).toBe(9_000);
    await h.expectAuditClean();
  });

  test("the journal: a match end that cannot be written fails alone; the one ending with it is written", async () => {
    const [u, v] = [await developerWithBot("u"), await developerWithBot("v")];
    const table = await emptyTable(u.token);
    const [uS, vS] = [await sit(u, table.tableId, 0), await sit(v, table.tableId, 1)];
    await markMatchStarted(h.database.db, table.tableId, "m_good", at(0), NO_DECK);
    const journal = new HandJournal(h.database.db, h.clock, () => {}, new DeckSeal(h.database.db, undefined), () => null, () => {});
    // A match that was never started: its players' rows have no match to belong to.
    const broken = outcome(table.tableId, "m_never_started", [player(uS, 1000), player(vS, 1000)], [], 2);
    const good = outcome(table.tableId, "m_good", [player(uS, 500), player(vS, 1500)], [closure(uS, 500), closure(vS, 1500)], 3);
    const [brokenEnd, goodEnd] = await Promise.allSettled([journal.finish(broken), journal.finish(good)]);
    expect(brokenEnd.status).toBe("rejected");
    expect(goodEnd.status).toBe("fulfilled");
    const [row] = await rowsOf<{ status: string }>(h.database.db, sql`select status from matches where id = 'm_good'`);
    expect(row.status).toBe("completed");
    expect((await h.call("GET", "/api/me/balance", { token: u.token })).body.balance).toBe(9_500);
    expect((await h.call("GET", "/api/me/balance", { token: v.token })).body.balance).toBe(10_500);
    await h.expectAuditClean();
  });
});
