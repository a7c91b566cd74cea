import { asc, desc, eq } from "drizzle-orm";
import type { Db } from "../../db";
import { botRatings, bots } from "../../db/schema";
import { errors } from "../../lib/errors";
import { conservativeRating, priorRating, winRate, type BotRating } from "./skill";

/** One bot's rating as the API shows it (GET /api/ratings, the CLI, the web pages). */
export type RatingEntry = ReturnType<typeof entryOf>;

function entryOf(r: BotRating) {
  return {
    botId: r.botId,
    mu: r.mu,
    sigma: r.sigma,
    rating: conservativeRating(r),
    matchesPlayed: r.matchesPlayed,
    handsPlayed: r.handsPlayed,
    ...winRate(r),
  };
}

export class Ratings {
  constructor(private readonly db: Db) {}

  /** Every bot with at least one rated match: rating desc, then botId. */
  async list(page: { limit?: number; offset?: number }) {
    const rows = await this.db
      .select()
      .from(botRatings)
      .orderBy(desc(botRatings.rating), asc(botRatings.botId))
      .limit(page.limit ?? 100)
      .offset(page.offset ?? 0);
    return rows.map(entryOf);
  }

  /** A bot with no rated match yet has the prior; an unknown bot is 404. */
  async ofBot(botId: string) {
    const [found] = await this.db.select({ botId: bots.id, rating: botRatings }).from(bots).leftJoin(botRatings, eq(botRatings.botId, bots.id)).where(eq(bots.id, botId));
    if (!found) throw errors.notFound("Bot");
    return entryOf(found.rating ?? priorRating(botId));
  }
}
