import { eq, gte, sql } from "drizzle-orm";
import type { Db } from "../../db";
import { bots, botStats } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import { ascending, descending, keysetPage, PAGE, rankCursor, type Page } from "../../lib/paging";

export type LeaderboardRow = { botId: string; netChips: number; matchesPlayed: number };
export type BotStatistics = Awaited<ReturnType<Stats["readBotStats"]>>;

const CACHE_LIMIT = 10_000;

/** The leaderboard's order: netChips desc, then matchesPlayed desc, then botId (unique, so the order is total). */
const RANKING = [descending(botStats.netChips), descending(botStats.matchesPlayed), ascending(botStats.botId)];

export class Stats {
  /** The hottest read: one prepared round trip, the bot and its stats row together. */
  private readonly botWithStats;
  /**
   * Recently read statistics. This process drops a bot's entry when it records a match of that
   * bot; a match recorded by another process shows here within `cacheMs`.
   */
  private readonly cache = new Map<string, { value: BotStatistics; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly leaderboardMinMatches: number,
    private readonly clock: Clock,
    private readonly cacheMs: number,
  ) {
    this.botWithStats = db
      .select({ botId: bots.id, stats: botStats })
      .from(bots)
      .leftJoin(botStats, eq(botStats.botId, bots.id))
      .where(eq(bots.id, sql.placeholder("botId")))
      .prepare("bot_with_stats");
  }

  /** A registered bot that never played has all zeros and lastPlayed null; an unknown bot is 404. */
  async ofBot(botId: string): Promise<BotStatistics> {
    const now = this.clock.now();
    const cached = this.cache.get(botId);
    if (cached && cached.until > now) return cached.value;
    const value = await this.readBotStats(botId);
    if (this.cacheMs > 0) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(botId, { value, until: now + this.cacheMs });
    }
    return value;
  }

  /** This process recorded matches of these bots: their next read goes to the database. */
  forget(botIds: Iterable<string>): void {
    for (const botId of botIds) this.cache.delete(botId);
  }

  private async readBotStats(botId: string) {
    const [found] = await this.botWithStats.execute({ botId });
    if (!found) throw errors.notFound("Bot");
    const row = found.stats;
    return {
      botId,
      matchesPlayed: row?.matchesPlayed ?? 0,
      matchesWon: row?.matchesWon ?? 0,
      handsPlayed: row?.handsPlayed ?? 0,
      handsWon: row?.handsWon ?? 0,
      totalBuyIns: row?.totalBuyIns ?? 0,
      totalWinnings: row?.totalWinnings ?? 0,
      netChips: row?.netChips ?? 0,
      biggestWin: row?.biggestWin ?? 0,
      biggestLoss: row?.biggestLoss ?? 0,
      lastPlayed: row?.lastPlayed?.toISOString() ?? null,
    };
  }

  /** Bots with at least LEADERBOARD_MIN_MATCHES matches: netChips desc, then matchesPlayed desc, then botId. */
  async leaderboard(page: { limit?: number; offset?: number; after?: string }): Promise<Page<LeaderboardRow>> {
    const after = page.after === undefined ? undefined : rankCursor.decode(page.after, ["bigint", "int", "id"] as const);
    return keysetPage(
      this.db.select({ botId: botStats.botId, netChips: botStats.netChips, matchesPlayed: botStats.matchesPlayed }).from(botStats).$dynamic(),
      { where: gte(botStats.matchesPlayed, this.leaderboardMinMatches), order: RANKING, limit: page.limit ?? PAGE.default, offset: page.offset ?? 0, after },
      (last) => rankCursor.encode([last.netChips, last.matchesPlayed, last.botId]),
    );
  }
}
