import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { HandsQuery, Match, MatchHands, MatchListQuery, MatchParams } from "./model";
import type { Matches } from "./service";

export function matchesModule(matches: Matches) {
  return new Elysia({ name: "module:matches" })
    .get("/api/matches", ({ query }) => matches.list(query), {
      query: MatchListQuery,
      response: { 200: t.Array(Match), ...errorResponses(400) },
      detail: {
        tags: ["matches"],
        summary: "Completed matches",
        description: "Newest first (by end time, ties by matchId). `limit` default 50 (max 200); `before` a matchId cursor; `botId` only that bot's matches. Aborted matches are not listed.",
      },
    })
    .get("/api/matches/:id", ({ params }) => matches.get(params.id), {
      params: MatchParams,
      response: { 200: Match, ...errorResponses(404) },
      detail: { tags: ["matches"], summary: "One completed match", description: "With per-player profit/loss and the hand count." },
    })
    .get(
      "/api/matches/:id/hands",
      async ({ params, query, set }) => {
        if (query.format === "phh") {
          const text = await matches.handsPhh(params.id);
          set.headers["content-type"] = "application/toml; charset=utf-8";
          return text;
        }
        return matches.handsJson(params.id);
      },
      {
        params: MatchParams,
        query: HandsQuery,
        response: { 200: t.Union([MatchHands, t.String({ description: "PHH text when format=phh" })]), ...errorResponses(400, 404) },
        detail: {
          tags: ["matches"],
          summary: "The hand histories of a completed match",
          description:
            "Every hand with every action, the board, showdown and pot awards, hole cards included (the match is over). `?format=phh` answers PHH (Poker Hand History, TOML) text: a hand history set with one table per hand ([1], [2], …).",
        },
      },
    );
}
