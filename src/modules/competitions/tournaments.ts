/**
 * Tournaments (docs/COMPETITIONS.md). A sit-and-go is one table whose config carries the event's
 * blind schedule and its id: entering is a join (the buy-in), a withdrawal before the start a leave
 * (the buy-in back), a cancellation a close (every seat refunded), all through `Tables.*Via`; the
 * table starts when its last seat is taken and its match runner plays the freezeout (busted seats
 * leave with 0, the last bot holds every chip). The event's status follows its table's.
 */
import { and, desc, eq, inArray, lt, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { matches, tournamentEntries, tournaments, type TournamentKind, type TournamentStatus } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { pageOf, type Page } from "../../lib/paging";
import { TABLE_DEFAULTS } from "../../config";
import type { BlindLevel } from "../../poker/blind-levels";
import { refuseIfRetired, type Bots } from "../bots/service";
import { recordedHands } from "../match-host/hand-store";
import { decodeRecorded, matchDealOf } from "../match-host/recorded-hands";
import { selectMatches } from "../match-host/match-rows";
import type { Tables } from "../tables/service";
import type { RoundRobinResults, RoundRobinSettings, RoundRobins, ScheduledMatchView } from "./round-robin";
import { defaultBlindLevels, placesOf, refuseBadLevels, SIT_AND_GO_HAND_CAP, type Place } from "./sit-and-go";

export interface SitAndGoInput {
  kind: "sit-and-go";
  seats: number;
  buyIn: number;
  blindLevels?: BlindLevel[];
}

export interface RoundRobinInput {
  kind: "round-robin";
  matchesPerPair: number;
  handsPerMatch: number;
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
  division?: "open" | "hosted";
  startsAt?: string;
}

export interface SitAndGoSettings {
  seats: number;
  buyIn: number;
  blindLevels: BlindLevel[];
  handCap: number;
}

export interface TournamentView {
  tournamentId: string;
  kind: TournamentKind;
  status: TournamentStatus;
  createdBy: string;
  createdAt: string;
  buyIn: number;
  entries: Array<{ botId: string; enteredAt: string }>;
  // A sit-and-go:
  seats?: number;
  blindLevels?: BlindLevel[];
  handCap?: number;
  tableId?: string | null;
  matchId?: string | null;
  places?: Place[];
  // A round robin:
  matchesPerPair?: number;
  handsPerMatch?: number;
  smallBlind?: number;
  bigBlind?: number;
  division?: "open" | "hosted";
  startsAt?: string | null;
  rounds?: number | null;
  currentRound?: number;
  matches?: ScheduledMatchView[];
  crosstable?: RoundRobinResults["crosstable"];
  standings?: RoundRobinResults["standings"];
}

type TournamentRow = typeof tournaments.$inferSelect;

/** Registering or running tournaments one developer may have created. */
export const MAX_OPEN_TOURNAMENTS_PER_DEVELOPER = 10;

export class Tournaments {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly bots: Bots,
    private readonly tables: Tables,
    private readonly roundRobins: RoundRobins,
    private readonly archiveDir?: string,
  ) {}

  async create(developerId: string, input: SitAndGoInput | RoundRobinInput): Promise<TournamentView> {
    // A sit-and-go holds a table in a node's memory while it registers: a flood of them is refused.
    const [{ open }] = await queryRows<{ open: number }>(this.db, sql`select count(*)::int as open from tournaments where created_by = ${developerId} and status in ('registering', 'running')`);
    if (open >= MAX_OPEN_TOURNAMENTS_PER_DEVELOPER) {
      throw errors.conflict("TOO_MANY_OPEN_TOURNAMENTS", `A developer may have at most ${MAX_OPEN_TOURNAMENTS_PER_DEVELOPER} registering or running tournaments`, { limit: MAX_OPEN_TOURNAMENTS_PER_DEVELOPER });
    }
    return input.kind === "sit-and-go" ? this.createSitAndGo(developerId, input) : this.createRoundRobin(developerId, input);
  }

  private async createRoundRobin(developerId: string, input: RoundRobinInput): Promise<TournamentView> {
    if (input.smallBlind > input.bigBlind) throw errors.validation("smallBlind must not exceed bigBlind", { field: "smallBlind" });
    if (input.bigBlind > input.buyIn) throw errors.validation("bigBlind must not exceed buyIn", { field: "bigBlind" });
    const startsAt = input.startsAt === undefined ? null : new Date(input.startsAt);
    if (startsAt !== null && Number.isNaN(startsAt.getTime())) throw errors.validation("startsAt must be a date-time", { field: "startsAt" });
    const settings: RoundRobinSettings = {
      matchesPerPair: input.matchesPerPair,
      handsPerMatch: input.handsPerMatch,
      buyIn: input.buyIn,
      smallBlind: input.smallBlind,
      bigBlind: input.bigBlind,
      division: input.division ?? "open",
    };
    const now = this.clock.now();
    const tournamentId = newId("trn", now);
    await this.db.insert(tournaments).values({ id: tournamentId, kind: "round-robin", createdBy: developerId, settings: { ...settings }, status: "registering", startsAt, createdAt: new Date(now) });
    return this.get(tournamentId);
  }

  /** POST /api/tournaments/:id/start: the creator starts a registering round robin now (at least 2 entries). */
  async start(developerId: string, tournamentId: string): Promise<TournamentView> {
    const row = await this.row(tournamentId);
    if (row.createdBy !== developerId) throw errors.forbidden("Only the tournament's creator may start it");
    if (row.kind !== "round-robin") throw errors.conflict("TOURNAMENT_NOT_REGISTERING", "A sit-and-go starts by itself when its last seat is taken");
    await this.registering(tournamentId);
    if (!(await this.roundRobins.start(tournamentId))) {
      const fresh = await this.row(tournamentId);
      if (fresh.status === "registering") throw errors.conflict("TOURNAMENT_NOT_REGISTERING", "A round robin needs at least 2 entries to start", { entries: (await this.entriesOf(tournamentId)).length });
    }
    return this.get(tournamentId);
  }

  private async createSitAndGo(developerId: string, input: SitAndGoInput): Promise<TournamentView> {
    const blindLevels = input.blindLevels ?? defaultBlindLevels(input.buyIn);
    refuseBadLevels(blindLevels, input.buyIn);
    const settings: SitAndGoSettings = { seats: input.seats, buyIn: input.buyIn, blindLevels, handCap: SIT_AND_GO_HAND_CAP };
    const now = this.clock.now();
    const tournamentId = newId("trn", now);
    // The table first: a crash before the row leaves an empty waiting table, which expires (no money moved).
    const tableId = await this.tables.createCompetitionTable(developerId, {
      buyIn: settings.buyIn,
      smallBlind: blindLevels[0].smallBlind,
      bigBlind: blindLevels[0].bigBlind,
      maxPlayers: settings.seats,
      maxHands: settings.handCap,
      actionTimeoutMs: TABLE_DEFAULTS.actionTimeoutMs,
      blindLevels,
      tournamentId,
    });
    await this.db.insert(tournaments).values({ id: tournamentId, kind: "sit-and-go", createdBy: developerId, settings: { ...settings }, status: "registering", tableId, createdAt: new Date(now) });
    return this.get(tournamentId);
  }

  /** Newest first; `before` a tournamentId cursor. */
  async list(query: { status?: TournamentStatus; kind?: TournamentKind; limit?: number; before?: string }): Promise<Page<TournamentView>> {
    await this.refreshStatuses();
    const limit = query.limit ?? 50;
    const rows = await this.db
      .select()
      .from(tournaments)
      .where(and(query.status ? eq(tournaments.status, query.status) : undefined, query.kind ? eq(tournaments.kind, query.kind) : undefined, query.before ? lt(tournaments.id, query.before) : undefined))
      .orderBy(desc(tournaments.id))
      .limit(limit + 1);
    const page = pageOf(rows, limit, (last) => last.id);
    return { items: await Promise.all(page.items.map((row) => this.viewOf(row))), next: page.next };
  }

  async get(tournamentId: string): Promise<TournamentView> {
    await this.refreshStatuses([tournamentId]);
    return this.viewOf(await this.row(tournamentId));
  }

  /** POST /api/tournaments/:id/entries: one bot per developer; the seat and its buy-in are the table's join. */
  async enter(developerId: string, tournamentId: string, botId: string): Promise<{ tournamentId: string; botId: string; seat: number | null; chips: number | null }> {
    const bot = await this.bots.findOwned(developerId, botId);
    refuseIfRetired(bot);
    const tournament = await this.registering(tournamentId);
    if (tournament.kind === "round-robin" && (tournament.settings as unknown as RoundRobinSettings).division === "hosted" && bot.strategy === null && !(await this.bots.codeVersions([botId])).has(botId)) {
      throw errors.conflict("REMOTE_BOT_AT_DUPLICATE_TABLE", "The hosted division takes only bots the service runs (built-ins, hosted bots): upload its code first (docs/HOSTED.md)");
    }
    const entered = await this.db
      .insert(tournamentEntries)
      .values({ tournamentId, botId, developerId, enteredAt: new Date(this.clock.now()) })
      .onConflictDoNothing()
      .returning({ botId: tournamentEntries.botId });
    if (entered.length === 0) throw errors.conflict("DEVELOPER_ALREADY_ENTERED", "One bot per developer per event: yours is entered already");
    // A round robin seats (and charges) each bot at each of its matches' start.
    if (tournament.kind === "round-robin") return { tournamentId, botId, seat: null, chips: null };
    try {
      const seat = await this.tables.joinVia(developerId, tournament.tableId!, botId);
      return { tournamentId, botId, seat: seat.seat, chips: seat.chips };
    } catch (error) {
      await this.db.delete(tournamentEntries).where(and(eq(tournamentEntries.tournamentId, tournamentId), eq(tournamentEntries.botId, botId)));
      throw asTournamentError(error);
    }
  }

  /** DELETE /api/tournaments/:id/entries/:botId: before the start only; the seat's untouched chips come back (a cashout). */
  async withdraw(developerId: string, tournamentId: string, botId: string): Promise<{ tournamentId: string; botId: string; cashout: number }> {
    await this.bots.findOwned(developerId, botId);
    const tournament = await this.registering(tournamentId);
    const [entry] = await this.db.select().from(tournamentEntries).where(and(eq(tournamentEntries.tournamentId, tournamentId), eq(tournamentEntries.botId, botId)));
    if (!entry) throw new AppError(404, "BOT_NOT_ENTERED", "This bot is not entered in this tournament");
    if (tournament.kind === "round-robin") {
      await this.db.delete(tournamentEntries).where(and(eq(tournamentEntries.tournamentId, tournamentId), eq(tournamentEntries.botId, botId)));
      return { tournamentId, botId, cashout: 0 };
    }
    const left = await this.tables.leaveVia(developerId, tournament.tableId!, botId).catch((error) => {
      throw asTournamentError(error);
    });
    await this.db.delete(tournamentEntries).where(and(eq(tournamentEntries.tournamentId, tournamentId), eq(tournamentEntries.botId, botId)));
    return { tournamentId, botId, cashout: left.cashout! };
  }

  /** DELETE /api/tournaments/:id: the creator, before the start; every seat is refunded (one cashout each). */
  async cancel(developerId: string, tournamentId: string): Promise<TournamentView & { refunds: Array<{ botId: string; cashout: number }> }> {
    const tournament = await this.row(tournamentId);
    if (tournament.createdBy !== developerId) throw errors.forbidden("Only the tournament's creator may cancel it");
    await this.registering(tournamentId);
    if (tournament.kind === "round-robin") {
      // Nothing is paid before a round robin's matches: nothing to refund.
      const [cancelled] = await this.db.update(tournaments).set({ status: "cancelled" }).where(and(eq(tournaments.id, tournamentId), eq(tournaments.status, "registering"))).returning({ id: tournaments.id });
      if (!cancelled) throw errors.conflict("TOURNAMENT_NOT_REGISTERING", "The tournament has started");
      return { ...(await this.get(tournamentId)), refunds: [] };
    }
    const closed = await this.tables.closeVia(developerId, tournament.tableId!).catch((error) => {
      throw asTournamentError(error);
    });
    await this.db.update(tournaments).set({ status: "cancelled" }).where(eq(tournaments.id, tournamentId));
    return { ...(await this.get(tournamentId)), refunds: closed.refunds };
  }

  private async registering(tournamentId: string): Promise<TournamentRow> {
    await this.refreshStatuses([tournamentId]);
    const tournament = await this.row(tournamentId);
    if (tournament.status !== "registering") throw errors.conflict("TOURNAMENT_NOT_REGISTERING", `The tournament is ${tournament.status}`, { status: tournament.status });
    return tournament;
  }

  private async row(tournamentId: string): Promise<TournamentRow> {
    const [row] = await this.db.select().from(tournaments).where(eq(tournaments.id, tournamentId));
    if (!row) throw errors.notFound("Tournament");
    return row;
  }

  /**
   * A sit-and-go's status follows its table's: waiting → registering, running → running,
   * finished → finished (its places frozen then), closed or aborted (an empty table expires) →
   * cancelled. One statement brings the unfinished ones (or those named) up to date.
   */
  private async refreshStatuses(ids?: string[]): Promise<void> {
    await this.db.execute(
      sql`update tournaments t set status = case tb.status when 'running' then 'running' when 'finished' then 'finished' when 'waiting' then 'registering' else 'cancelled' end
        from tables tb where tb.id = t.table_id and t.kind = 'sit-and-go' and t.status in ('registering', 'running')
          ${ids ? sql`and t.id = any(${sql.param(ids)}::text[])` : sql``}
          and t.status <> (case tb.status when 'running' then 'running' when 'finished' then 'finished' when 'waiting' then 'registering' else 'cancelled' end)`,
    );
    // Finished and not frozen yet: just now, or a freeze a crash interrupted.
    const unfrozen = await queryRows<{ id: string }>(
      this.db,
      sql`select id from tournaments where kind = 'sit-and-go' and status = 'finished' and results is null ${ids ? sql`and id = any(${sql.param(ids)}::text[])` : sql``}`,
    );
    for (const row of unfrozen) await this.freezePlaces(row.id);
  }

  /** The places of a finished sit-and-go, from its match's hands and its seats' cashouts, stored once. */
  private async freezePlaces(tournamentId: string): Promise<void> {
    const tournament = await this.row(tournamentId);
    const [match] = await selectMatches(this.db).where(and(eq(matches.tableId, tournament.tableId!), eq(matches.status, "completed")));
    if (!match) return;
    const players = await queryRows<{ bot_id: string; final_chips: number }>(this.db, sql`select bot_id, final_chips::int as final_chips from match_players where match_id = ${match.id}`);
    const hands = decodeRecorded(matchDealOf(match, match.deckSecret), await recordedHands(this.db, match.id, 0, Number.POSITIVE_INFINITY, this.archiveDir));
    const places = placesOf(hands, new Map(players.map((p) => [p.bot_id, p.final_chips])));
    await this.db.update(tournaments).set({ results: { matchId: match.id, places } }).where(eq(tournaments.id, tournamentId));
  }

  private entriesOf(tournamentId: string) {
    return this.db.select().from(tournamentEntries).where(eq(tournamentEntries.tournamentId, tournamentId)).orderBy(tournamentEntries.enteredAt, tournamentEntries.botId);
  }

  private async viewOf(row: TournamentRow): Promise<TournamentView> {
    const entries = await this.entriesOf(row.id);
    const common = {
      tournamentId: row.id,
      kind: row.kind,
      status: row.status,
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
      buyIn: (row.settings as { buyIn: number }).buyIn,
      entries: entries.map((e) => ({ botId: e.botId, enteredAt: e.enteredAt.toISOString() })),
    };
    if (row.kind === "round-robin") return { ...common, ...(await this.roundRobinParts(row)) };
    const settings = row.settings as unknown as SitAndGoSettings;
    const results = row.results as { matchId: string; places: Place[] } | null;
    let matchId = results?.matchId ?? null;
    if (!matchId && row.status === "running") {
      const [running] = await this.db.select({ id: matches.id }).from(matches).where(inArray(matches.tableId, [row.tableId!]));
      matchId = running?.id ?? null;
    }
    return {
      ...common,
      seats: settings.seats,
      blindLevels: settings.blindLevels,
      handCap: settings.handCap,
      tableId: row.tableId,
      matchId,
      places: results?.places ?? [],
    };
  }

  /** A round robin: its schedule, and its crosstable and standings (live while it runs, frozen once finished). */
  private async roundRobinParts(row: TournamentRow): Promise<Partial<TournamentView>> {
    const settings = row.settings as unknown as RoundRobinSettings;
    const results = row.status === "finished" ? (row.results as RoundRobinResults) : row.status === "running" ? await this.roundRobins.resultsOf(row) : { crosstable: [], standings: [] };
    return {
      matchesPerPair: settings.matchesPerPair,
      handsPerMatch: settings.handsPerMatch,
      smallBlind: settings.smallBlind,
      bigBlind: settings.bigBlind,
      division: settings.division,
      startsAt: row.startsAt?.toISOString() ?? null,
      rounds: settings.rounds ?? null,
      currentRound: row.currentRound,
      matches: await this.roundRobins.scheduleOf(row.id),
      crosstable: results.crosstable,
      standings: results.standings,
    };
  }
}

/** The table's refusals in the event's words. */
function asTournamentError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === "TABLE_FULL") return errors.conflict("TOURNAMENT_FULL", "Every seat of this sit-and-go is taken");
  if (error.code === "TABLE_NOT_JOINABLE" || error.code === "TABLE_NOT_WAITING") return errors.conflict("TOURNAMENT_NOT_REGISTERING", "The tournament has started or ended");
  return error;
}
