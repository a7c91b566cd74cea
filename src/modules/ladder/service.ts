import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import type { LadderFormat } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import type { Page } from "../../lib/paging";
import type { LadderSettings } from "../../config";
import { refuseIfRetired, type Bots } from "../bots/service";
import { hostedSeatsHeld } from "../hosted/code-store";
import { presentBots } from "../protocol/presence";
import { conservativeRating, priorRating } from "../ratings/skill";
import { entryState, type EntryFacts, type PauseReason } from "./availability";
import type { Accounts } from "../credits/service";
import { ensureHouse, houseId, houseLimitsReached } from "./house";
import type { LadderStandingRow } from "./model";
import { rankedEntries, standingRowOf } from "./standings";
import { whoWaits, type EntryReason, type HouseSituation, type HouseUnavailable } from "./waiting";

/** An entry as its developer sees it (GET /api/me/ladder, POST /api/ladder/entries). */
export interface LadderEntryView {
  botId: string;
  format: LadderFormat;
  status: "active" | "paused" | "left";
  reason: EntryReason | null;
  opponentsAvailable: number;
  houseUnavailable: HouseUnavailable | null;
  enteredAt: string;
  matchesPlayed: number;
}

/** An entry with everything the rules look at, read in one go (the matchmaker and the views). */
export interface EntryWithFacts {
  botId: string;
  format: LadderFormat;
  developerId: string;
  enteredAt: Date;
  facts: EntryFacts;
  mu: number;
  sigma: number;
  rating: number;
  matchesPlayed: number;
  /** Taken off the ladder (a soft delete): its record stays, nobody pairs it. */
  left: boolean;
  /** One of the house's entries. */
  house: boolean;
}

interface EntryRow {
  bot_id: string;
  format: LadderFormat;
  developer_id: string;
  entered_at: Date | string;
  left: boolean;
  strategy: string | null;
  hosted: boolean;
  retired: boolean;
  balance: string | number;
  seated: boolean;
  mu: number | null;
  sigma: number | null;
}

const PRIOR = priorRating("");

/** Entries, their standing and the ladder's public table (docs/LADDER.md). */
export class Ladder {
  private house: string | null = null;
  /** A format's picture being read now, shared by the requests that arrive meanwhile (a burst of entries reads it once). */
  private readonly pictures = new Map<string, Promise<EntryWithFacts[]>>();
  private opening: Promise<string> | null = null;

  constructor(
    private readonly db: Db,
    private readonly bots: Bots,
    private readonly clock: Clock,
    readonly settings: LadderSettings,
    private readonly options: {
      /** The faucet's cooldown: when the house, out of credits, can pay again. */
      faucetCooldownMs?: number;
      /** The house's faucet, claimed when the house is made. */
      accounts?: Accounts;
      /** MAX_HOSTED_SEATS_PER_DEVELOPER: a developer's hosted bots take no more seats than this at once (docs/HOSTED.md). */
      hostedSeatLimit?: number;
    } = {},
  ) {}

  /** POST /api/ladder/entries: 201 with a new entry (or one brought back after a leave), 200 with the one already there. */
  async enter(developerId: string, botId: string, format: LadderFormat): Promise<{ created: boolean; entry: LadderEntryView }> {
    const bot = await this.bots.findOwned(developerId, botId);
    refuseIfRetired(bot);
    // The first entry of a service makes the house (and claims its faucet), so a newcomer has opponents from its first answer.
    if ((await this.houseId()) === null && this.settings.houseBots.length > 0) await this.openHouse();
    const now = new Date(this.clock.now()).toISOString();
    const entered = await queryRows(
      this.db,
      sql`insert into ladder_entries (bot_id, format, developer_id, entered_at) values (${botId}, ${format}, ${developerId}, ${now}::timestamptz)
          on conflict (bot_id, format) do update set left_at = null, entered_at = excluded.entered_at where ladder_entries.left_at is not null
          returning 1`,
    );
    const [entry] = await this.views(await this.withFacts({ botId, format }));
    return { created: entered.length > 0, entry };
  }

  /**
   * DELETE /api/ladder/entries/:botId: the bot finishes the match it is in and is not paired
   * again; its record stays in the standings as `left`. The answer is the entry as it stood.
   */
  async leave(developerId: string, botId: string, format: LadderFormat): Promise<LadderEntryView> {
    await this.bots.findOwned(developerId, botId);
    const [entry] = await this.views(await this.withFacts({ botId, format }));
    if (!entry) throw errors.notFound("Ladder entry");
    const left = await queryRows(
      this.db,
      sql`update ladder_entries set left_at = ${new Date(this.clock.now()).toISOString()}::timestamptz where bot_id = ${botId} and format = ${format} and left_at is null returning 1`,
    );
    if (left.length === 0) throw errors.notFound("Ladder entry");
    return entry;
  }

  /** GET /api/me/ladder: the caller's entries (not those it took off), each with why it does not play if it does not. */
  async mine(developerId: string): Promise<LadderEntryView[]> {
    return this.views(await this.withFacts({ developerId }));
  }

  /** One bot's entries, those it left too (its web page), each with its status. */
  async ofBot(botId: string): Promise<LadderEntryView[]> {
    return this.views(await this.withFacts({ botId, includeLeft: true }));
  }

  /** GET /api/ladder: entered bots of a format (those that left too) by rating (mu − 3·sigma) descending, then botId. */
  async standings(format: LadderFormat, page: { limit?: number; after?: string }): Promise<Page<LadderStandingRow>> {
    const found = await rankedEntries(this.db, format, page);
    const [played, states] = await Promise.all([this.matchesPlayed(found.items.map((r) => r.bot_id)), this.statesOfFormat(format)]);
    return { items: found.items.map((row) => standingRowOf(row, format, played, states)), next: found.next };
  }

  /** Entries (of a bot, of a developer, of a format, or all; those that left only with `includeLeft`) with the facts the rules need, read now. */
  async withFacts(filter: { botId?: string; format?: LadderFormat; developerId?: string; includeLeft?: boolean; uncounted?: boolean } = {}): Promise<EntryWithFacts[]> {
    const rows = await queryRows<EntryRow>(
      this.db,
      sql`select e.bot_id, e.format, e.developer_id, e.entered_at, (e.left_at is not null) as left, b.strategy, (b.retired_at is not null) as retired, d.balance,
            exists (select 1 from seats s where s.bot_id = e.bot_id and s.status = 'open') as seated,
            (b.unhosted_at is null and exists (select 1 from bot_code_versions v where v.bot_id = e.bot_id)) as hosted, r.mu, r.sigma
          from ladder_entries e join bots b on b.id = e.bot_id join developers d on d.id = e.developer_id left join bot_ratings r on r.bot_id = e.bot_id
          where true ${filter.botId ? sql`and e.bot_id = ${filter.botId}` : sql``} ${filter.format ? sql`and e.format = ${filter.format}` : sql``}
            ${filter.developerId ? sql`and e.developer_id = ${filter.developerId}` : sql``} ${filter.includeLeft ? sql`` : sql`and e.left_at is null`}
          order by e.entered_at, e.bot_id, e.format`,
    );
    const remote = rows.filter((r) => r.strategy === null && !r.hosted && !r.left).map((r) => r.bot_id);
    // `uncounted`: who may play whom only (the views' picture of a format): no match counts read.
    const hostedOwners = rows.filter((r) => r.hosted && !r.left).map((r) => r.developer_id);
    const [connected, played, house, hostedSeats] = await Promise.all([
      presentBots(this.db, remote),
      filter.uncounted ? new Map() : this.matchesPlayed(rows.map((r) => r.bot_id)),
      this.houseId(),
      this.options.hostedSeatLimit === undefined ? new Map<string, number>() : hostedSeatsHeld(this.db, hostedOwners),
    ]);
    const hostedSeatsLeft = (developerId: string) => (this.options.hostedSeatLimit ?? Infinity) - (hostedSeats.get(developerId) ?? 0);
    return rows.map((r) => {
      const mu = r.mu ?? PRIOR.mu;
      const sigma = r.sigma ?? PRIOR.sigma;
      return {
        botId: r.bot_id,
        format: r.format,
        developerId: r.developer_id,
        enteredAt: new Date(r.entered_at),
        facts: { retired: r.retired, builtIn: r.strategy !== null, hosted: r.hosted, connected: connected.has(r.bot_id), balance: Number(r.balance), seated: r.seated, hostedSeatsLeft: hostedSeatsLeft(r.developer_id) },
        mu,
        sigma,
        rating: conservativeRating({ mu, sigma }),
        matchesPlayed: played.get(`${r.bot_id}|${r.format}`)?.matches ?? 0,
        left: r.left,
        house: r.developer_id === house,
      };
    });
  }

  /**
   * Every entry of a format with what decides who may play whom (no match counts), read once for
   * the requests that arrive while it is read: single-flight, never cached past its read.
   */
  private picture(format: LadderFormat, includeLeft: boolean): Promise<EntryWithFacts[]> {
    const key = `${format}|${includeLeft}`;
    let reading = this.pictures.get(key);
    if (!reading) {
      reading = this.withFacts({ format, includeLeft, uncounted: true }).finally(() => this.pictures.delete(key));
      this.pictures.set(key, reading);
    }
    return reading;
  }

  private get faucetCooldown(): number {
    return this.options.faucetCooldownMs ?? 86_400_000;
  }

  /** The house's developer id (null until the first entry made it). */
  async houseId(): Promise<string | null> {
    this.house ??= await houseId(this.db);
    return this.house;
  }

  /**
   * Makes the house if it is not there yet (idempotent: the first entry, the matchmaker's first
   * round, or both at once) and claims its faucet when it may (refused during its cooldown).
   */
  openHouse(): Promise<string> {
    // Once per process at a time: a burst of first entries (and the matchmaker's first round) share one.
    this.opening ??= (async () => {
      const house = await ensureHouse(this.db, this.bots, this.clock, this.settings.houseBots);
      this.house = house;
      await this.options.accounts?.claimFaucet(house).catch(() => {});
      return house;
    })().finally(() => (this.opening = null));
    return this.opening;
  }

  /** The house as anyone may see it (the /ladder page): whether it can pay a buy-in now, and when it can again. Null before it exists. */
  async houseNow(): Promise<{ outOfCredits: boolean; paysAgainAt: string } | null> {
    const house = await this.houseId();
    if (house === null) return null;
    const [row] = await queryRows<{ balance: string | number; last_faucet_at: Date | string | null }>(this.db, sql`select balance, last_faucet_at from developers where id = ${house}`);
    const now = this.clock.now();
    const nextClaim = row?.last_faucet_at ? new Date(row.last_faucet_at).getTime() + this.faucetCooldown : now;
    return { outOfCredits: Number(row?.balance ?? 0) < this.settings.buyIn, paysAgainAt: new Date(Math.max(now, nextClaim)).toISOString() };
  }

  /**
   * Entries as their owners see them: status and reason, and for an active free entry how many
   * bots it may meet are free now (NO_OPPONENT when too few for a table) and whether the house's
   * bots are why (out of credits, or this developer's daily limit reached).
   */
  private async views(entries: EntryWithFacts[]): Promise<LadderEntryView[]> {
    if (entries.length === 0) return [];
    const formats = [...new Set(entries.map((e) => e.format))];
    const [pictures, house] = await Promise.all([Promise.all(formats.map((format) => this.picture(format, false))), this.houseUnavailability(entries)]);
    // The entries asked about, as just read, in place of (or besides) their older selves in a shared picture.
    const asked = new Set(entries.map((e) => `${e.botId}|${e.format}`));
    const everyone = [...pictures.flat().filter((e) => !asked.has(`${e.botId}|${e.format}`)), ...entries.filter((e) => !e.left)];
    const waiting = whoWaits(everyone, this.settings.buyIn, house);
    return entries.map((e) => {
      const state = entryState(e.facts, this.settings.buyIn);
      const waits = waiting.get(`${e.botId}|${e.format}`);
      const status = e.left ? ("left" as const) : state.status;
      const reason: EntryReason | null = e.left ? null : (state.reason ?? (waits?.noOpponent ? "NO_OPPONENT" : null));
      return {
        botId: e.botId,
        format: e.format,
        status,
        reason,
        opponentsAvailable: waits?.opponentsAvailable ?? 0,
        houseUnavailable: status === "active" && !e.house ? (waits?.houseUnavailable ?? null) : null,
        enteredAt: e.enteredAt.toISOString(),
        matchesPlayed: e.matchesPlayed,
      };
    });
  }

  /** Who may not meet the house's bots now, and when the house can pay again: read for these entries' developers. */
  private async houseUnavailability(entries: EntryWithFacts[]): Promise<HouseSituation> {
    const house = await this.houseId();
    if (house === null) return { house: null, limited: new Map(), paysAgainAt: null };
    const now = new Date(this.clock.now());
    const developers = [...new Set(entries.filter((e) => !e.house).map((e) => e.developerId))];
    const [limits, [account]] = await Promise.all([
      Promise.all(developers.map((developerId) => houseLimitsReached(this.db, house, now, this.settings.houseDailyLimit, developerId))).then((maps) => new Map(maps.flatMap((m) => [...m]))),
      queryRows<{ last_faucet_at: Date | string | null }>(this.db, sql`select last_faucet_at from developers where id = ${house}`),
    ]);
    const nextClaim = account?.last_faucet_at ? new Date(account.last_faucet_at).getTime() + this.faucetCooldown : now.getTime();
    return { house, limited: limits, paysAgainAt: new Date(Math.max(nextClaim, now.getTime())) };
  }

  /** Every entry of a format (those that left too), with its status and reason: the standings' view of them. */
  private async statesOfFormat(format: LadderFormat): Promise<Map<string, { house: boolean; status: "active" | "paused" | "left"; reason: EntryReason | null }>> {
    const everyone = await this.picture(format, true);
    const waiting = whoWaits(everyone.filter((e) => !e.left), this.settings.buyIn, { house: await this.houseId(), limited: new Map(), paysAgainAt: null });
    return new Map(
      everyone.map((e) => {
        const state = entryState(e.facts, this.settings.buyIn);
        const reason: EntryReason | null = e.left ? null : (state.reason ?? (waiting.get(`${e.botId}|${e.format}`)?.noOpponent ? "NO_OPPONENT" : null));
        return [e.botId, { house: e.house, status: e.left ? "left" : state.status, reason }];
      }),
    );
  }

  /**
   * Completed ladder matches per bot and format ("botId|format" → counts): all of them, and those
   * played as duplicate (two hosted bots heads-up). A duplicate match is its pair of copies, counted
   * once (as the ratings count it), from its first completed copy (least() skips a null twin).
   */
  private async matchesPlayed(botIds: string[]): Promise<Map<string, { matches: number; duplicate: number }>> {
    if (botIds.length === 0) return new Map();
    const rows = await queryRows<{ bot_id: string; format: string; n: number; duplicate: number }>(
      this.db,
      sql`select mp.bot_id, t.ladder as format, count(distinct least(m.id, m.twin_match_id))::int as n,
            (count(distinct least(m.id, m.twin_match_id)) filter (where m.twin_match_id is not null))::int as duplicate
          from match_players mp join matches m on m.id = mp.match_id join tables t on t.id = m.table_id
          where t.ladder is not null and m.status = 'completed' and mp.bot_id = any(${sql.param([...new Set(botIds)])}::text[]) group by mp.bot_id, t.ladder`,
    );
    return new Map(rows.map((r) => [`${r.bot_id}|${r.format}`, { matches: Number(r.n), duplicate: Number(r.duplicate) }]));
  }
}
