import { asc, eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { botRatingHistory, botRatings, bots, matches } from "../../db/schema";
import { errors } from "../../lib/errors";
import { ascending, descending, keysetPage, PAGE, rankCursor, type Page } from "../../lib/paging";
import { conservativeRating, MIXED_ESTIMATORS, priorRating, winRate, type BotRating } from "./skill";

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

  /** The bot's rating after each of its rated matches, oldest first (bot_rating_history; the past filled by ratings:rebuild). */
  async history(botId: string, limit = 500): Promise<RatingPoint[]> {
    const rows = await this.db
      .select({ matchId: botRatingHistory.matchId, mu: botRatingHistory.mu, sigma: botRatingHistory.sigma, endedAt: matches.endedAt })
      .from(botRatingHistory)
      .innerJoin(matches, eq(matches.id, botRatingHistory.matchId))
      .where(eq(botRatingHistory.botId, botId))
      .orderBy(asc(botRatingHistory.ratedSeq))
      .limit(limit);
    return rows.map((row) => ({ matchId: row.matchId, mu: row.mu, sigma: row.sigma, rating: conservativeRating(row), endedAt: row.endedAt?.toISOString() ?? null }));
  }

  /**
   * The bot's rated results against each opponent: every rated match it played with them, its own
   * hands in those matches (in a multi-way match they count against each opponent at the table).
   */
  async byOpponent(botId: string): Promise<OpponentResults[]> {
    // The adjusted sums are those of the estimator that rated each match (one name, or MIXED_ESTIMATORS).
    // Opponents: the match's other players (match_players, by its key), each with its row of the same
    // rating step (bot_rating_history's key, bot and rated_seq): a player the rating left out has none.
    const rows = await queryRows<{ opponent: string; matches: number; hands: number; sum_bb: number; sum_bb_squared: number; sum_adjusted_bb: number; sum_adjusted_bb_squared: number; estimator: string }>(
      this.db,
      sql`select o.bot_id as opponent, count(*)::int as matches, sum(me.hands)::int as hands, sum(me.sum_bb) as sum_bb, sum(me.sum_bb_squared) as sum_bb_squared,
            sum(me.sum_adjusted_bb) as sum_adjusted_bb, sum(me.sum_adjusted_bb_squared) as sum_adjusted_bb_squared,
            case when count(distinct m.rating_estimator) = 1 then min(m.rating_estimator) else ${MIXED_ESTIMATORS} end as estimator
          from bot_rating_history me join match_players mp on mp.match_id = me.match_id and mp.bot_id <> me.bot_id
            join bot_rating_history o on o.bot_id = mp.bot_id and o.rated_seq = me.rated_seq
            join matches m on m.id = me.match_id
          where me.bot_id = ${botId} group by o.bot_id order by count(*) desc, o.bot_id`,
    );
    return rows.map((row) => ({
      opponentId: row.opponent,
      matches: row.matches,
      hands: row.hands,
      ...winRate({ handsPlayed: row.hands, sumBb: Number(row.sum_bb), sumBbSquared: Number(row.sum_bb_squared), sumAdjustedBb: Number(row.sum_adjusted_bb), sumAdjustedBbSquared: Number(row.sum_adjusted_bb_squared), estimator: row.estimator }),
    }));
  }
}

export interface RatingPoint {
  matchId: string;
  mu: number;
  sigma: number;
  rating: number;
  endedAt: string | null;
}

export type OpponentResults = { opponentId: string; matches: number; hands: number } & ReturnType<typeof winRate>;
