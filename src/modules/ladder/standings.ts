/**
 * The ladder's standings: a format's entered bots (those that left too) ranked by their rating
 * (mu − 3·sigma, the prior for a bot not yet rated) descending, then botId; each row with its
 * record and its win rates.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import type { LadderFormat } from "../../db/schema";
import { ascending, descending, PAGE, pageOf, pastKeys, rankCursor, sortedBy, type Page } from "../../lib/paging";
import { conservativeRating, priorRating, winRate } from "../ratings/skill";
import type { LadderStandingRow } from "./model";
import type { EntryReason } from "./waiting";

const PRIOR = priorRating("");

export interface RankedEntry {
  bot_id: string;
  name: string;
  mu: number | null;
  sigma: number | null;
  rating: number;
  hands_played: number | null;
  sum_bb: number | null;
  sum_bb_squared: number | null;
  sum_adjusted_bb: number | null;
  sum_adjusted_bb_squared: number | null;
  estimator: string | null;
}

/** One page of a format's entries in rating order. */
export async function rankedEntries(db: Db, format: LadderFormat, page: { limit?: number; after?: string }): Promise<Page<RankedEntry>> {
  const limit = page.limit ?? PAGE.default;
  const after = page.after === undefined ? null : rankCursor.decode(page.after, ["double", "id"] as const);
  const rating = sql`coalesce(r.rating, ${conservativeRating(PRIOR)}::float8)`;
  // The keyset of every list (lib/paging.ts), over an expression: the query is SQL, not a Drizzle select, for its left join and prior.
  const order = [descending(rating), ascending(sql`e.bot_id`)] as const;
  const rows = await queryRows<RankedEntry>(
    db,
    sql`select e.bot_id, b.name, r.mu, r.sigma, ${rating} as rating, r.hands_played, r.sum_bb, r.sum_bb_squared, r.sum_adjusted_bb, r.sum_adjusted_bb_squared, r.estimator
        from ladder_entries e join bots b on b.id = e.bot_id left join bot_ratings r on r.bot_id = e.bot_id
        where e.format = ${format} and b.retired_at is null
          ${after ? sql`and ${pastKeys(order, after)}` : sql``}
        order by ${sql.join(sortedBy(order), sql`, `)} limit ${limit + 1}`,
  );
  return pageOf(rows, limit, (last) => rankCursor.encode([Number(last.rating), last.bot_id]));
}

/** A standings row: the entry's rating, its matches in the format, its state, and its win rates. */
export function standingRowOf(
  r: RankedEntry,
  format: LadderFormat,
  played: Map<string, { matches: number; duplicate: number }>,
  states: Map<string, { house: boolean; status: "active" | "paused" | "left"; reason: EntryReason | null }>,
): LadderStandingRow {
  const handsPlayed = Number(r.hands_played ?? 0);
  const state = states.get(r.bot_id);
  return {
    botId: r.bot_id,
    name: r.name,
    house: state?.house ?? false,
    status: state?.status ?? "left",
    // A developer's reasons are theirs (a public INSUFFICIENT_BALANCE would publish their balance); the house's are the service's own.
    reason: state?.house ? state.reason : null,
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
      estimator: r.estimator ?? PRIOR.estimator,
    }),
  };
}
