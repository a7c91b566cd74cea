import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { RatingEntry, RatingParams, RatingsQuery } from "./model";
import type { Ratings } from "./service";

const HOW =
  "OpenSkill (Weng–Lin Bayesian rating, Plackett–Luce model, the `openskill` package), updated a moment after each match is recorded (off the hot path, in record order: docs/RATINGS.md), ranking its players by their adjusted result over the match (Σ adjusted big blinds; equal sums share a rank). Rated: unseeded matches with bots of at least two developers (self-play and seeded matches are not). bbPer100 (as the chips say) and bbPer100Adjusted (the measurable luck taken out), each with a 95 % confidence interval from every rated hand. `bun run ratings:rebuild` recomputes all of it from the match records and hand histories and gives the same numbers.";

export function ratingsModule(ratings: Ratings) {
  return new Elysia({ name: "module:ratings" })
    .get("/api/ratings", async ({ query, set }) => withNextLink(set, await ratings.list(query), "/api/ratings", (after) => ({ limit: query.limit, after })), {
      query: RatingsQuery,
      response: { 200: t.Array(RatingEntry), ...errorResponses(400) },
      detail: { tags: ["ratings"], summary: "Skill ratings with uncertainty", description: `${HOW} Sorted by rating (mu − 3·sigma) descending, then botId; every bot with at least one rated match. ${PAGING_RULE} \`offset\` still works.` },
    })
    .get("/api/ratings/:botId", ({ params }) => ratings.ofBot(params.botId), {
      params: RatingParams,
      response: { 200: RatingEntry, ...errorResponses(400, 404) },
      detail: { tags: ["ratings"], summary: "One bot's rating", description: `${HOW} A bot with no rated match yet: the prior (mu 25, sigma 25/3), handsPlayed 0, CI null.` },
    });
}
