import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import type { LadderFormat } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import { PAGE, pageOf, rankCursor, type Page } from "../../lib/paging";
import type { LadderSettings } from "../../config";
import { refuseIfRetired, type Bots } from "../bots/service";
import { presentBots } from "../protocol/presence";
import { conservativeRating, priorRating, winRate } from "../ratings/skill";
import { entryState, type EntryFacts, type PauseReason } from "./availability";

/** An entry as its developer sees it (GET /api/me/ladder, POST /api/ladder/entries). */
export interface LadderEntryView {
  botId: string;
  format: LadderFormat;
  status: "active" | "paused";
  reason: PauseReason | null;
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
}

interface EntryRow {
  bot_id: string;
  format: LadderFormat;
  developer_id: string;
  entered_at: Date | string;
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
  constructor(
    private readonly db: Db,
    private readonly bots: Bots,
    private readonly clock: Clock,
    readonly settings: LadderSettings,
  ) {}

  /** POST /api/ladder/entries: 201 with a new entry, 200 with the one already there. */
  async enter(developerId: string, botId: string, format: LadderFormat): Promise<{ created: boolean; entry: LadderEntryView }> {
    const bot = await this.bots.findOwned(developerId, botId);
    refuseIfRetired(bot);
    const inserted = await queryRows(
      this.db,
      sql`insert into ladder_entries (bot_id, format, developer_id, entered_at) values (${botId}, ${format}, ${developerId}, ${new Date(this.clock.now()).toISOString()}::timestamptz)
          on conflict (bot_id, format) do nothing returning 1`,
    );
    const [entry] = await this.views(await this.withFacts({ botId, format }));
    return { created: inserted.length > 0, entry };
  }

  /** DELETE /api/ladder/entries/:botId: the bot finishes the match it is in and is not paired again. */
  async leave(developerId: string, botId: string, format: LadderFormat): Promise<LadderEntryView> {
    await this.bots.findOwned(developerId, botId);
    const [entry] = await this.views(await this.withFacts({ botId, format }));
    if (!entry) throw errors.notFound("Ladder entry");
    await this.db.execute(sql`delete from ladder_entries where bot_id = ${botId} and format = ${format}`);
    return entry;
  }

  /** GET /api/me/ladder: the caller's entries, each with why it does not play if it does not. */
  async mine(developerId: string): Promise<LadderEntryView[]> {
    return this.views(await this.withFacts({ developerId }));
  }

  /** One bot's entries (its web page), each with its status. */
  async ofBot(botId: string): Promise<LadderEntryView[]> {
    return this.views(await this.withFacts({ botId }));
  }

  /** GET /api/ladder: entered bots of a format by rating (mu − 3·sigma) descending, then botId. */
  async standings(format: LadderFormat, page: { limit?: number; after?: string }) {
    const limit = page.limit ?? PAGE.default;
    const after = page.after === undefined ? null : rankCursor.decode(page.after, ["double", "id"] as const);
    const rating = sql`coalesce(r.rating, ${conservativeRating(PRIOR)}::float8)`;
    const rows = await queryRows<{ bot_id: string; name: string; mu: number | null; sigma: number | null; rating: number; hands_played: number | null; sum_bb: number | null; sum_bb_squared: number | null; sum_adjusted_bb: number | null; sum_adjusted_bb_squared: number | null }>(
      this.db,
      sql`select e.bot_id, b.name, r.mu, r.sigma, ${rating} as rating, r.hands_played, r.sum_bb, r.sum_bb_squared, r.sum_adjusted_bb, r.sum_adjusted_bb_squared
          from ladder_entries e join bots b on b.id = e.bot_id left join bot_ratings r on r.bot_id = e.bot_id
          where e.format = ${format} and b.retired_at is null
            ${after ? sql`and (${rating} < ${after[0]} or (${rating} = ${after[0]} and e.bot_id > ${after[1]}))` : sql``}
          order by ${rating} desc, e.bot_id asc limit ${limit + 1}`,
    );
    const found = pageOf(rows, limit, (last) => rankCursor.encode([Number(last.rating), last.bot_id]));
    const played = await this.matchesPlayed(found.items.map((r) => r.bot_id));
    const items = found.items.map((r) => {
      const handsPlayed = Number(r.hands_played ?? 0);
      return {
        botId: r.bot_id,
        name: r.name,
        rating: Number(r.rating),
        mu: r.mu ?? PRIOR.mu,
        sigma: r.sigma ?? PRIOR.sigma,
        matchesPlayed: played.get(`${r.bot_id}|${format}`)?.matches ?? 0,
        duplicateMatches: played.get(`${r.bot_id}|${format}`)?.duplicate ?? 0,
        handsPlayed,
        ...winRate({
          handsPlayed,
          sumBb: Number(r.sum_bb ?? 0),
          sumBbSquared: Number(r.sum_bb_squared ?? 0),
          sumAdjustedBb: Number(r.sum_adjusted_bb ?? 0),
          sumAdjustedBbSquared: Number(r.sum_adjusted_bb_squared ?? 0),
        }),
      };
    });
    return { items, next: found.next } satisfies Page<unknown>;
  }

  /** Entries (of a bot, of a developer, or all) with the facts the rules need, read now. */
  async withFacts(filter: { botId?: string; format?: LadderFormat; developerId?: string } = {}): Promise<EntryWithFacts[]> {
    const rows = await queryRows<EntryRow>(
      this.db,
      sql`select e.bot_id, e.format, e.developer_id, e.entered_at, b.strategy, (b.retired_at is not null) as retired, d.balance,
            exists (select 1 from seats s where s.bot_id = e.bot_id and s.status = 'open') as seated,
            exists (select 1 from bot_code_versions v where v.bot_id = e.bot_id) as hosted, r.mu, r.sigma
          from ladder_entries e join bots b on b.id = e.bot_id join developers d on d.id = e.developer_id left join bot_ratings r on r.bot_id = e.bot_id
          where true ${filter.botId ? sql`and e.bot_id = ${filter.botId}` : sql``} ${filter.format ? sql`and e.format = ${filter.format}` : sql``}
            ${filter.developerId ? sql`and e.developer_id = ${filter.developerId}` : sql``}
          order by e.entered_at, e.bot_id, e.format`,
    );
    const remote = rows.filter((r) => r.strategy === null && !r.hosted).map((r) => r.bot_id);
    const [connected, played] = await Promise.all([presentBots(this.db, remote), this.matchesPlayed(rows.map((r) => r.bot_id))]);
    return rows.map((r) => {
      const mu = r.mu ?? PRIOR.mu;
      const sigma = r.sigma ?? PRIOR.sigma;
      return {
        botId: r.bot_id,
        format: r.format,
        developerId: r.developer_id,
        enteredAt: new Date(r.entered_at),
        facts: { retired: r.retired, builtIn: r.strategy !== null, hosted: r.hosted, connected: connected.has(r.bot_id), balance: Number(r.balance), seated: r.seated },
        mu,
        sigma,
        rating: conservativeRating({ mu, sigma }),
        matchesPlayed: played.get(`${r.bot_id}|${r.format}`)?.matches ?? 0,
      };
    });
  }

  private views(entries: EntryWithFacts[]): LadderEntryView[] {
    return entries.map((e) => {
      const state = entryState(e.facts, this.settings.buyIn);
      return { botId: e.botId, format: e.format, status: state.status, reason: state.reason, enteredAt: e.enteredAt.toISOString(), matchesPlayed: e.matchesPlayed };
    });
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
