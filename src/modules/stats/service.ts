import { asc, desc, eq, gte } from "drizzle-orm";
import type { Db } from "../../db";
import { botStats } from "../../db/schema";
import type { Bots } from "../bots/service";

export class Stats {
  constructor(
    private readonly db: Db,
    private readonly bots: Bots,
    private readonly leaderboardMinMatches: number,
  ) {}

  /** A registered bot that never played has all zeros and lastPlayed null; an unknown bot is 404. */
  async ofBot(botId: string) {
    await this.bots.find(botId);
    const [row] = await this.db.select().from(botStats).where(eq(botStats.botId, botId));
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
  async leaderboard(page: { limit?: number; offset?: number }) {
    return this.db
      .select({ botId: botStats.botId, netChips: botStats.netChips, matchesPlayed: botStats.matchesPlayed })
      .from(botStats)
      .where(gte(botStats.matchesPlayed, this.leaderboardMinMatches))
      .orderBy(desc(botStats.netChips), desc(botStats.matchesPlayed), asc(botStats.botId))
      .limit(page.limit ?? 100)
      .offset(page.offset ?? 0);
  }
}
