/**
 * A match's rows store no copy of what is stored elsewhere (issue 35): its config is its table's,
 * its winners are derived from its players in seat order unless their order says otherwise, a
 * player's row names no seat, and once it is completed it names no seat's bot (its players do).
 * The API answers byte for byte as it did from rows that held both (rows written before).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { storedWinners, winnersOf } from "../../src/poker/match-winners";
import { developerWithBot, playTable } from "../support/rated-tables";
import { useHarness } from "../support/app";
import { tableConfigOf } from "../../src/db/table-config";

setDefaultTimeout(90_000);

const h = useHarness("match_row_copies");

/** What GET serves of a match: its record, its first hands as JSON and PHH, its fairness record; and its hands as one of its owners sees them (their own bots' cards). */
async function served(matchId: string, owner: string): Promise<string[]> {
  const paths = [`/api/matches/${matchId}`, `/api/matches/${matchId}/hands?limit=5`, `/api/matches/${matchId}/hands?limit=5&format=phh`, `/api/matches/${matchId}/fairness`];
  const bodies: string[] = [];
  for (const [path, token] of [...paths.map((path) => [path, undefined] as const), [paths[1], owner] as const]) {
    const answer = await h.app.handle(new Request(`http://localhost${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }));
    expect(answer.status).toBe(200);
    bodies.push(await answer.text());
  }
  return bodies;
}

describe("a match's config and winners are not stored twice", () => {
  test("matches of 2, 3 and 6 seats: no config, winners or seat bots on new match rows, no seat or developer on player rows; the record, hands, PHH, fairness and an owner's view the same as from rows that held them", async () => {
    const strategies = ["raiser", "caller", "tight", "random", "caller", "raiser"];
    const matchIds: string[] = [];
    const owners: string[] = [];
    for (const seats of [2, 3, 6]) {
      const players = [];
      for (let i = 0; i < seats; i++) players.push(await developerWithBot(h.call, `s${seats}p${i}`, strategies[i]));
      const tableId = await playTable(h.call, players, { maxHands: 12, smallBlind: 5, bigBlind: 10 });
      // The owner whose view is compared: the tight bot's where there is one (it folds most hands, so the public sees fewer of its cards).
      owners.push(players[seats > 2 ? 2 : 0].token);
      await h.app.services.host.settled();
      matchIds.push((await h.call("GET", `/api/tables/${tableId}`)).body.matchId);
    }
    const stored = await queryRows<{ id: string; config: unknown; winners: unknown; seat_bots: unknown }>(
      h.database.db,
      sql`select id, config, winners, seat_bots from matches where id = any(${sql.param(matchIds)}::text[]) and status = 'completed'`,
    );
    expect(stored.map((row) => [row.config, row.winners, row.seat_bots])).toEqual(matchIds.map(() => [null, null, null]));
    // Nor their tables: each names its shared config row (migration 0029).
    const tableRows = await queryRows<{ config: unknown; config_id: number | null }>(
      h.database.db,
      sql`select t.config, t.config_id from tables t join matches m on m.table_id = t.id where m.id = any(${sql.param(matchIds)}::text[])`,
    );
    expect(tableRows.map((row) => [row.config, typeof row.config_id])).toEqual(matchIds.map(() => [null, "number"]));
    // Nor a player's seat (its bot's seat whose cashout names the match), nor its developer (its bot's owner).
    const seatless = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from match_players where match_id = any(${sql.param(matchIds)}::text[]) and seat_id is null and developer_id is null`,
    );
    expect(seatless[0].n).toBe(2 + 3 + 6);

    const now = await Promise.all(matchIds.map((id, i) => served(id, owners[i])));
    // The owner sees its bot's hole cards in every hand; the public only what was shown down: fewer, where the tight bot folded.
    const shown = (body: string) => body.match(/"type":"hole_cards","seat":\d+,"cards":\["/g)?.length ?? 0;
    for (const bodies of now) expect(shown(bodies[4])).toBeGreaterThanOrEqual(Math.max(shown(bodies[1]), JSON.parse(bodies[1]).hands.length));
    expect(now.slice(1).reduce((sum, bodies) => sum + shown(bodies[4]) - shown(bodies[1]), 0)).toBeGreaterThan(0);
    const records = now.map((bodies) => JSON.parse(bodies[0]));
    for (const [i, seats] of [2, 3, 6].entries()) {
      expect(records[i].config).toEqual({ buyIn: 500, smallBlind: 5, bigBlind: 10, maxPlayers: seats });
      const most = Math.max(...records[i].players.map((p: { finalChips: number }) => p.finalChips));
      expect(records[i].winners.length).toBeGreaterThan(0);
      expect(records[i].winners).toEqual(records[i].players.filter((p: { finalChips: number }) => p.finalChips === most).map((p: { botId: string; profit: number }) => ({ botId: p.botId, amount: p.profit })));
    }
    // Rows as written before: the table's config copied onto the match (and held by the table itself, as before
    // migration 0029), the winners and each seat's bot (null where nobody sat) copied onto the match.
    for (const [i, matchId] of matchIds.entries()) {
      const players = await queryRows<{ bot_id: string; position: number }>(h.database.db, sql`select bot_id, position from match_players where match_id = ${matchId}`);
      const seatBots = Array.from({ length: [2, 3, 6][i] }, (_, position) => players.find((p) => p.position === position)?.bot_id ?? null);
      expect(seatBots.filter((botId) => botId !== null)).toHaveLength([2, 3, 6][i]);
      await h.database.db.execute(
        sql`update matches m set config = ${tableConfigOf("t")}, winners = ${JSON.stringify(records[i].winners)}::jsonb, seat_bots = ${sql.param(seatBots)}::text[] from tables t where t.id = m.table_id and m.id = ${matchId}`,
      );
      await h.database.db.execute(sql`update tables t set config = ${tableConfigOf("t")} from matches m where m.table_id = t.id and m.id = ${matchId}`);
      await h.database.db.execute(sql`update match_players p set developer_id = b.developer_id from bots b where b.id = p.bot_id and p.match_id = ${matchId}`);
    }
    expect(await Promise.all(matchIds.map((id, i) => served(id, owners[i])))).toEqual(now);

    // A stored list wins over the derived one (the order a departure gave it).
    const reversed = [...records[2].players].reverse().map((p: { botId: string; profit: number }) => ({ botId: p.botId, amount: p.profit }));
    await h.database.db.execute(sql`update matches set winners = ${JSON.stringify(reversed)}::jsonb where id = ${matchIds[2]}`);
    expect(JSON.parse((await served(matchIds[2], owners[2]))[0]).winners).toEqual(reversed);
    await h.expectAuditClean();
  });

  test("storedWinners: null when the players in seat order name the same winners in the same order; the list when a departed player tied for the most comes first", () => {
    const player = (botId: string, position: number, finalChips: number) => ({ botId, position, finalChips, buyIn: 500 });
    // Departed players first (match-runner.ts), then the seated in seat order.
    const cases: Array<[ReturnType<typeof player>[], boolean]> = [
      [[player("a", 0, 1000), player("b", 1, 0)], false],
      [[player("b", 1, 0), player("a", 0, 1000)], false],
      [[player("c", 2, 0), player("a", 0, 500), player("b", 1, 500)], false],
      [[player("b", 1, 500), player("a", 0, 500), player("c", 2, 500)], true],
      [[player("a", 0, 700), player("a2", 0, 800)], true],
    ];
    for (const [players, kept] of cases) {
      const stored = storedWinners(players);
      expect(stored).toEqual(kept ? winnersOf(players) : null);
      if (!kept) expect(winnersOf([...players].sort((x, y) => x.position - y.position))).toEqual(winnersOf(players));
    }
    expect(cases).toHaveLength(5);
  });
});
