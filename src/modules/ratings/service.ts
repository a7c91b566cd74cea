import { eq } from "drizzle-orm";
import type { Db } from "../../db";
import { botRatings, bots } from "../../db/schema";
import { errors } from "../../lib/errors";
import { ascending, descending, keysetPage, PAGE, rankCursor, type Page } from "../../lib/paging";
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

/** Rating desc, then botId (unique, so the order is total): bot_ratings_order_idx. */
const RANKING = [descending(botRatings.rating), ascending(botRatings.botId)];

export class Ratings {
  constructor(private readonly db: Db) {}

  /** Every bot with at least one rated match: rating desc, then botId. */
  async list(page: { limit?: number; offset?: number; after?: string }): Promise<Page<RatingEntry>> {
    const after = page.after === undefined ? undefined : rankCursor.decode(page.after, ["double", "id"] as const);
    // The cursor holds the stored sort key, so the next page continues exactly where this one stops.
    const found = await keysetPage(this.db.select().from(botRatings).$dynamic(), { order: RANKING, limit: page.limit ?? PAGE.default, offset: page.offset ?? 0, after }, (last) =>
      rankCursor.encode([last.rating, last.botId]),
    );
    return { items: found.items.map(entryOf), next: found.next };
  }

  /** A bot with no rated match yet has the prior; an unknown bot is 404. */
  async ofBot(botId: string) {
    const [found] = await this.db.select({ botId: bots.id, rating: botRatings }).from(bots).leftJoin(botRatings, eq(botRatings.botId, bots.id)).where(eq(bots.id, botId));
    if (!found) throw errors.notFound("Bot");
    return entryOf(found.rating ?? priorRating(botId));
  }
}
