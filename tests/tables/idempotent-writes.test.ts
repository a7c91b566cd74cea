/**
 * A lost connection can hide a COMMIT that happened: the match writes are retried, so each must
 * change nothing when run again after a commit whose answer was lost. Here every first attempt
 * commits and then "loses its answer" (throws CONNECTION_CLOSED), so every write runs twice.
 */
import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Db } from "../../src/db";
import { markMatchStarted, writeBatches, type TableBatch } from "../../src/modules/match-host/persistence";
import { finishMatch } from "../../src/modules/match-host/match-finish";
import { useHarness } from "../support/app";
import { rowsOf } from "../campaigns/support";
import type { StoredHand } from "../../src/poker/hand-record";

const h = useHarness("idempotent_writes");

/** The database, except that each odd-numbered transaction commits and then throws as if the connection dropped. */
function losingEveryOtherAnswer(db: Db): { db: Db; lost: () => number } {
  let calls = 0;
  let lost = 0;
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "transaction") return Reflect.get(target, property, receiver);
      return async (...args: Parameters<Db["transaction"]>) => {
        const result = await target.transaction(...args);
        if (++calls % 2 === 1) {
          lost += 1;
          throw Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" });
        }
        return result;
      };
    },
  });
  return { db: proxy, lost: () => lost };
}

describe("match writes retried after a commit whose answer was lost", () => {
  test("start, hand batches with a cashout, and the match end each take effect exactly once", async () => {
    // Two developers (so the match is rated too) at a three-seat table: the match does not start by itself.
    const devs = [await h.fundedDeveloper(), await h.fundedDeveloper()];
    const table = (await h.call("POST", "/api/tables", { token: devs[0].token, body: { maxPlayers: 3, buyIn: 1000 } })).body;
    const seated: Array<{ botId: string; seatId: number; developerId: string }> = [];
    for (const [i, name] of ["alpha", "beta"].entries()) {
      const { token, developerId } = devs[i];
      const bot = (await h.call("POST", "/api/bots", { token, body: { name, strategy: "caller" } })).body;
      expect((await h.call("POST", `/api/tables/${table.tableId}/join`, { token, body: { botId: bot.botId } })).status).toBe(201);
      const [seat] = await rowsOf<{ seq: string }>(h.database.db, sql`select seq from seats where bot_id = ${bot.botId} and status = 'open'`);
      seated.push({ botId: bot.botId, seatId: Number(seat.seq), developerId });
    }
    const [alpha, beta] = seated;
    const { db, lost } = losingEveryOtherAnswer(h.database.db);
    const matchId = "m_idempotent";
    const at = (ms: number) => new Date(h.clock.now() + ms);
    const hand = (number: number) => ({ number, history: { handNumber: number } as unknown as StoredHand, explicitCards: false });
    // The table's chunk grows with each batch (the journal writes the row again, longer): its bytes do not matter here.
    const batch = (hands: number[], stacks: Array<[number, number]>, closures: TableBatch["closures"] = []): TableBatch => ({
      tableId: table.tableId,
      matchId,
      hands: hands.map(hand),
      chunks: [{ first: 1, last: hands[hands.length - 1], bytes: new Uint8Array(hands[hands.length - 1]) }],
      stacks: new Map(stacks),
      closures,
    });

    await markMatchStarted(db, table.tableId, matchId, at(0), { deckCommitment: null, deckSecretSealed: null, seatBots: [], handsReserved: 0 });
    await writeBatches(db, [batch([1, 2, 3], [[alpha.seatId, 400], [beta.seatId, 1600]])], at(1));
    // Alpha busts: its seat is closed and cashed out (0) in the batch of hand 4.
    await writeBatches(db, [batch([4], [[beta.seatId, 2000]], [{ seatId: alpha.seatId, developerId: alpha.developerId, botId: alpha.botId, chips: 0 }])], at(2));
    const player = (bot: (typeof seated)[number], position: number, finalChips: number) => ({
      botId: bot.botId,
      developerId: bot.developerId,
      seatId: bot.seatId,
      position,
      buyIn: 1000,
      finalChips,
      handsPlayed: 4,
      handsWon: 2,
    });
    await finishMatch(
      db,
      {
        matchId,
        voidedHands: [],
        tableId: table.tableId,
        handsPlayed: 5,
        startedAt: at(0),
        endedAt: at(3),
        players: [player(alpha, 0, 0), player(beta, 1, 2000)],
        finalClosures: [{ seatId: beta.seatId, developerId: beta.developerId, botId: beta.botId, chips: 2000 }],
        ranked: true,
        rated: true,
      },
      batch([5], [[beta.seatId, 2000]]),
    );
    expect(lost()).toBe(4);

    const [counts] = await rowsOf<Record<string, number | string | boolean>>(
      h.database.db,
      sql`select (select count(*)::int from matches where id = ${matchId}) as matches,
                 (select status from matches where id = ${matchId}) as status,
                 (select hands_played from matches where id = ${matchId}) as hands_played,
                 (select count(*)::int from hands where match_id = ${matchId}) as hands,
                 (select count(*)::int from match_players where match_id = ${matchId}) as players,
                 (select count(*)::int from transactions where match_id = ${matchId} and type = 'cashout') as cashouts,
                 (select count(*)::int from seats where table_id = ${table.tableId} and status = 'open') as open_seats,
                 (select sum(matches_played)::int from bot_stats) as matches_played,
                 (select rating_pending from matches where id = ${matchId}) as rating_pending`,
    );
    expect(counts).toEqual({ matches: 1, status: "completed", hands_played: 5, hands: 5, players: 2, cashouts: 2, open_seats: 0, matches_played: 2, rating_pending: true });
    expect((await h.call("GET", "/api/me/balance", { token: devs[0].token })).body.balance).toBe(9_000);
    expect((await h.call("GET", "/api/me/balance", { token: devs[1].token })).body.balance).toBe(11_000);
    await h.expectAuditClean();
  });
});
