/**
 * A round robin's director (docs/COMPETITIONS.md): the schedule made at the start (rounds of
 * disjoint pairs, schedule.ts), each round's matches opened and seated together, the next round
 * once every match of this one has ended, the crosstable and standings frozen at the end. Each match
 * is an ordinary table: each bot's buy-in debited at its seating, cashed out at its end. In the
 * hosted division each match is a duplicate pair and every match of a round deals from the round's
 * one committed secret, revealed when the round's last match has ended (match-host/round-decks.ts).
 * Rounds are opened and advanced only by the node holding the competitions role
 * (competitions/director.ts), one pass at a time; a start (its creator's POST …/start, or the
 * director at `startsAt`) is a guarded update, so it happens once.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { matches, tournamentMatches, tournaments } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { TABLE_DEFAULTS } from "../../config";
import type { DeckSeal } from "../match-host/deck-seal";
import { commitRound, revealRound } from "../match-host/round-decks";
import type { Tables } from "../tables/service";
import type { TableConfig } from "../../db/schema";
import type { CompetitionPlacement } from "./placement";
import { circleSchedule, roundsOf } from "./schedule";
import { crosstableOf, standingsOf, type CrosstableCell, type MatchResult, type Standing } from "./standings";

export interface RoundRobinSettings {
  matchesPerPair: number;
  handsPerMatch: number;
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
  division: "open" | "hosted";
  rounds?: number;
}

export interface ScheduledMatchView {
  round: number;
  players: [string, string];
  status: "scheduled" | "playing" | "played" | "forfeit";
  tableId: string | null;
  /** The match (copy 1's for a hosted duplicate pair); null before it starts, or forfeited. */
  matchId: string | null;
  /** Copy 2's match (hosted division). */
  twinMatchId: string | null;
  forfeitedBy: string | null;
}

export interface RoundRobinResults {
  crosstable: CrosstableCell[];
  standings: Standing[];
}

type TournamentRow = typeof tournaments.$inferSelect;

/** A bot still held by its last match's host (its record committed, its release a moment behind): up to 40 tries 25 ms apart. */
const SEAT_RETRIES = 40;
const SEAT_RETRY_MS = 25;
type MatchRow = typeof tournamentMatches.$inferSelect;

/**
 * Which of these matches (their tables; copy 1 of a duplicate pair) have ended: a plain table once
 * it is finished, a duplicate pair once both copies are (copy 2 may finish after copy 1, each its own match).
 */
export async function endedMatches(db: Db, tableIds: string[]): Promise<string[]> {
  const pairs = await queryRows<{ id: string; finished: boolean }>(
    db,
    sql`select coalesce(case when copy = 2 then twin_id end, id) as id, bool_and(status = 'finished') as finished from tables
      where id = any(${sql.param(tableIds)}::text[]) or twin_id = any(${sql.param(tableIds)}::text[]) group by 1`,
  );
  return pairs.filter((pair) => pair.finished).map((pair) => pair.id);
}

export class RoundRobins {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly tables: Tables,
    private readonly deckSeal: DeckSeal,
    private readonly log: (message: string, error?: unknown) => void = () => {},
    /** Spreads the matches over the cluster's nodes (absent: every table here). */
    private readonly placement?: CompetitionPlacement,
  ) {}

  /** Starts a registering round robin: its schedule written (false: it was not registering, or had fewer than 2 entries). Round 1 opens at the director's next pass. */
  async start(tournamentId: string): Promise<boolean> {
    const entries = await queryRows<{ bot_id: string }>(this.db, sql`select bot_id from tournament_entries where tournament_id = ${tournamentId} order by entered_at, bot_id`);
    if (entries.length < 2) return false;
    const [row] = await this.db.select().from(tournaments).where(eq(tournaments.id, tournamentId));
    const settings = row.settings as unknown as RoundRobinSettings;
    const schedule = circleSchedule(entries.map((e) => e.bot_id), settings.matchesPerPair);
    const started = await this.db.transaction(async (tx) => {
      const [won] = await tx
        .update(tournaments)
        .set({ status: "running", currentRound: 1, settings: { ...settings, rounds: roundsOf(schedule) } })
        .where(and(eq(tournaments.id, tournamentId), eq(tournaments.status, "registering")))
        .returning({ id: tournaments.id });
      if (!won) return false;
      await tx.insert(tournamentMatches).values(schedule.map((m) => ({ tournamentId, round: m.round, botA: m.botA, botB: m.botB, status: "scheduled" as const })));
      return true;
    });
    // Its rounds are opened by the director alone (advance), so no two nodes or passes open one twice.
    return started;
  }

  /** Brings a running round robin forward: the round's ended matches recorded, then the next round, or the end. */
  async advance(tournamentId: string): Promise<void> {
    const [row] = await this.db.select().from(tournaments).where(eq(tournaments.id, tournamentId));
    if (!row || row.status !== "running" || row.kind !== "round-robin") return;
    const round = row.currentRound;
    const scheduled = await this.matchesOf(tournamentId, round);
    // A round whose matches were never opened (a director that stopped between rounds): open them now.
    if (scheduled.some((m) => m.status === "scheduled")) return this.startRound(tournamentId, round);
    const tableIds = scheduled.filter((m) => m.status === "playing").map((m) => m.tableId!);
    if (tableIds.length > 0) {
      const ended = await endedMatches(this.db, tableIds);
      if (ended.length > 0) await this.db.update(tournamentMatches).set({ status: "played" }).where(and(eq(tournamentMatches.tournamentId, tournamentId), inArray(tournamentMatches.tableId, ended)));
      if (ended.length < tableIds.length) return;
    }
    const settings = row.settings as unknown as RoundRobinSettings;
    if (settings.division === "hosted") await this.revealRound(row, round);
    const next = round + 1;
    if (next <= (settings.rounds ?? 0)) {
      const [moved] = await this.db.update(tournaments).set({ currentRound: next }).where(and(eq(tournaments.id, tournamentId), eq(tournaments.currentRound, round))).returning({ id: tournaments.id });
      if (moved) await this.startRound(tournamentId, next);
      return;
    }
    const results = await this.resultsOf(row);
    await this.db.update(tournaments).set({ status: "finished", results }).where(and(eq(tournaments.id, tournamentId), eq(tournaments.status, "running")));
  }

  /**
   * Opens and seats every match of a round. A hosted round commits its secret first. A bot whose
   * owner cannot pay at its match's start (or that sits at another table) forfeits that match: the
   * table is closed and the other bot's buy-in, if paid, comes back.
   */
  private async startRound(tournamentId: string, round: number): Promise<void> {
    const [row] = await this.db.select().from(tournaments).where(eq(tournaments.id, tournamentId));
    const settings = row.settings as unknown as RoundRobinSettings;
    const hosted = settings.division === "hosted";
    if (hosted) await commitRound(this.db, this.deckSeal, { tournamentId, round }, new Date(this.clock.now()));
    const owners = new Map(
      (await queryRows<{ bot_id: string; developer_id: string }>(this.db, sql`select bot_id, developer_id from tournament_entries where tournament_id = ${tournamentId}`)).map((e) => [e.bot_id, e.developer_id]),
    );
    const toOpen = (await this.matchesOf(tournamentId, round)).filter((m) => m.status === "scheduled");
    const nodes = (await this.placement?.nodesFor(toOpen.length, round)) ?? [];
    // The round's matches are opened together (each its own bots and owners): they start within milliseconds of each other.
    const open = async (match: MatchRow, node: string | undefined) => {
      const config: TableConfig = {
        buyIn: settings.buyIn,
        smallBlind: settings.smallBlind,
        bigBlind: settings.bigBlind,
        maxPlayers: 2,
        maxHands: settings.handsPerMatch,
        actionTimeoutMs: TABLE_DEFAULTS.actionTimeoutMs,
        tournamentId,
        ...(hosted ? { duplicate: true, dealRound: { tournamentId, round } } : {}),
      };
      const tableId = node && this.placement ? await this.placement.openAt(node, row.createdBy, config) : await this.tables.createCompetitionTable(row.createdBy, config);
      const key = and(eq(tournamentMatches.tournamentId, tournamentId), eq(tournamentMatches.round, round), eq(tournamentMatches.botA, match.botA));
      await this.db.update(tournamentMatches).set({ tableId, status: "playing" }).where(key);
      for (const botId of [match.botA, match.botB]) {
        if (await this.seat(owners.get(botId) ?? "", tableId, botId)) continue;
        await this.tables.closeVia(row.createdBy, tableId);
        await this.db.update(tournamentMatches).set({ status: "forfeit", forfeitedBy: botId }).where(key);
        this.log(`round robin ${tournamentId}: ${botId} forfeits its round-${round} match (it could not be seated)`);
        break;
      }
    };
    await Promise.all(toOpen.map((match, i) => open(match, nodes[i])));
  }

  /**
   * Seats a bot at its match (its owner's buy-in); false when it cannot play: its owner cannot pay,
   * or it sits at a table whose match still runs. A seat at a table whose match has just ended is
   * released by its host a moment after the record commits: that join is tried again, a bounded number of times.
   */
  private async seat(developerId: string, tableId: string, botId: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.tables.joinVia(developerId, tableId, botId);
        return true;
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const elsewhere = (error.details as { tableId?: string } | undefined)?.tableId;
        if (error.code !== "BOT_ALREADY_SEATED" || elsewhere === undefined || attempt >= SEAT_RETRIES) return false;
        const [other] = await queryRows<{ status: string }>(this.db, sql`select status from tables where id = ${elsewhere}`);
        if (other?.status !== "finished") return false;
        await Bun.sleep(SEAT_RETRY_MS);
      }
    }
  }

  /** Every match of the round has ended: the round's secret revealed everywhere, the matches marked for rating (one copy per pair). */
  private async revealRound(row: TournamentRow, round: number): Promise<void> {
    const played = (await this.matchesOf(row.id, round)).filter((m) => m.status === "played");
    const records = await this.recordsOf(played.map((m) => m.tableId!));
    const ids = records.map((r) => r.id);
    // The copy recorded second of each pair (the later id) carries the pair's rating, as match-finish.ts decides for any pair.
    const rated = played.map((m) => records.filter((r) => r.pairTableId === m.tableId).map((r) => r.id).sort().pop()!).filter(Boolean);
    await revealRound(this.db, this.deckSeal, { tournamentId: row.id, round }, ids, rated, new Date(this.clock.now()));
  }

  /** The match records at these tables and their twins, each with its pair's copy-1 table. */
  private async recordsOf(tableIds: string[]): Promise<Array<{ id: string; pairTableId: string; handsPlayed: number }>> {
    if (tableIds.length === 0) return [];
    return (
      await queryRows<{ id: string; pair_table_id: string; hands_played: number }>(
        this.db,
        sql`select m.id, coalesce(case when t.copy = 2 then t.twin_id end, t.id) as pair_table_id, m.hands_played from matches m join tables t on t.id = m.table_id
          where m.status = 'completed' and (t.id = any(${sql.param(tableIds)}::text[]) or t.twin_id = any(${sql.param(tableIds)}::text[]))`,
      )
    ).map((r) => ({ id: r.id, pairTableId: r.pair_table_id, handsPlayed: r.hands_played }));
  }

  /** Each scheduled match's result from its records (both copies of a hosted pair together). */
  async matchResults(tournamentId: string): Promise<MatchResult[]> {
    const all = await this.db.select().from(tournamentMatches).where(eq(tournamentMatches.tournamentId, tournamentId));
    const ended = all.filter((m) => m.status === "played" || m.status === "forfeit");
    const records = await this.recordsOf(ended.filter((m) => m.status === "played").map((m) => m.tableId!));
    const profits = records.length === 0 ? [] : await queryRows<{ match_id: string; bot_id: string; profit: number }>(this.db, sql`select match_id, bot_id, profit::int as profit from match_players where match_id = any(${sql.param(records.map((r) => r.id))}::text[])`);
    return ended.map((m) => {
      const mine = records.filter((r) => r.pairTableId === m.tableId);
      const ids = new Set(mine.map((r) => r.id));
      return {
        botA: m.botA,
        botB: m.botB,
        profitA: profits.filter((p) => ids.has(p.match_id) && p.bot_id === m.botA).reduce((s, p) => s + p.profit, 0),
        hands: mine.reduce((s, r) => s + r.handsPlayed, 0),
        forfeitedBy: m.forfeitedBy,
      };
    });
  }

  async resultsOf(row: TournamentRow): Promise<RoundRobinResults> {
    const settings = row.settings as unknown as RoundRobinSettings;
    const botIds = (await queryRows<{ bot_id: string }>(this.db, sql`select bot_id from tournament_entries where tournament_id = ${row.id} order by bot_id`)).map((e) => e.bot_id);
    const results = await this.matchResults(row.id);
    return { crosstable: crosstableOf(botIds, results, settings.bigBlind), standings: standingsOf(botIds, results, settings.bigBlind, row.id) };
  }

  /** The schedule as GET shows it. */
  async scheduleOf(tournamentId: string): Promise<ScheduledMatchView[]> {
    const all = await this.db.select().from(tournamentMatches).where(eq(tournamentMatches.tournamentId, tournamentId)).orderBy(tournamentMatches.round, tournamentMatches.botA);
    const tableIds = all.filter((m) => m.tableId !== null).map((m) => m.tableId!);
    const records = tableIds.length === 0 ? [] : await queryRows<{ id: string; table_id: string; copy: number | null; pair_table_id: string }>(
      this.db,
      sql`select m.id, m.table_id, t.copy, coalesce(case when t.copy = 2 then t.twin_id end, t.id) as pair_table_id from matches m join tables t on t.id = m.table_id
        where t.id = any(${sql.param(tableIds)}::text[]) or t.twin_id = any(${sql.param(tableIds)}::text[])`,
    );
    return all.map((m) => {
      const mine = records.filter((r) => r.pair_table_id === m.tableId);
      return {
        round: m.round,
        players: [m.botA, m.botB],
        status: m.status,
        tableId: m.tableId,
        matchId: mine.find((r) => r.copy !== 2)?.id ?? null,
        twinMatchId: mine.find((r) => r.copy === 2)?.id ?? null,
        forfeitedBy: m.forfeitedBy,
      };
    });
  }

  private matchesOf(tournamentId: string, round: number): Promise<MatchRow[]> {
    return this.db.select().from(tournamentMatches).where(and(eq(tournamentMatches.tournamentId, tournamentId), eq(tournamentMatches.round, round)));
  }
}

/** Round robins whose `startsAt` has come, and those running: what the director looks at each tick. */
export async function roundRobinsToAct(db: Db, now: Date): Promise<{ due: string[]; running: string[] }> {
  const rows = await db
    .select({ id: tournaments.id, status: tournaments.status, startsAt: tournaments.startsAt })
    .from(tournaments)
    .where(and(eq(tournaments.kind, "round-robin"), inArray(tournaments.status, ["registering", "running"])));
  return {
    due: rows.filter((r) => r.status === "registering" && r.startsAt !== null && r.startsAt.getTime() <= now.getTime()).map((r) => r.id),
    running: rows.filter((r) => r.status === "running").map((r) => r.id),
  };
}

