import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { BotStatistics, LeaderboardEntry, LeaderboardQuery, StatsParams } from "./model";
import type { Stats } from "./service";

export function statsModule(stats: Stats, leaderboardMinMatches: number) {
  return new Elysia({ name: "module:stats" })
    .get("/api/stats/:botId", ({ params }) => stats.ofBot(params.botId), {
      params: StatsParams,
      // Built from typed rows by our own code: skip re-validating the hottest read on every call.
      response: { 200: t.NoValidate(BotStatistics), ...errorResponses(400, 404) },
      detail: {
        tags: ["stats"],
        summary: "A bot's statistics",
        description: "Aggregates over the bot's completed matches (aborted matches do not count). A bot that never played: zeros and lastPlayed null.",
      },
    })
    .get("/api/stats", async ({ query, set }) => withNextLink(set, await stats.leaderboard(query), "/api/stats", (after) => ({ limit: query.limit, after })), {
      query: LeaderboardQuery,
      response: { 200: t.Array(LeaderboardEntry), ...errorResponses(400) },
      detail: {
        tags: ["stats"],
        summary: "The leaderboard",
        description: `Bots with at least LEADERBOARD_MIN_MATCHES (${leaderboardMinMatches}) matches, by netChips descending, then matchesPlayed descending, then botId. ${PAGING_RULE} The brief's \`offset\` still works. Counts every unseeded completed match, self-play included (the brief defines it from each bot's statistics): a record of chips won, not a skill ranking — see GET /api/ratings, which no self-play or seeded match moves.`,
      },
    });
}
