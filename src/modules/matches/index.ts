import { Elysia, t } from "elysia";
import { errors } from "../../lib/errors";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { Fairness, HANDS_PAGE, HandsQuery, Match, MatchHands, MatchListQuery, MatchParams } from "./model";
import type { Matches } from "./service";

export function matchesModule(matches: Matches, auth: AuthOptions) {
  return new Elysia({ name: "module:matches" })
    .use(authPlugin(auth))
    .get("/api/matches", async ({ query, set }) => withNextLink(set, await matches.list(query), "/api/matches", (before) => ({ limit: query.limit, botId: query.botId, before })), {
      query: MatchListQuery,
      response: { 200: t.Array(Match), ...errorResponses(400) },
      detail: {
        tags: ["matches"],
        summary: "Completed matches",
        description: `Newest first (by end time, ties by matchId); \`botId\`: only that bot's matches. ${PAGING_RULE} The cursor is \`before\`, a matchId. Aborted matches are not listed.`,
      },
    })
    .get("/api/matches/:id", ({ params }) => matches.get(params.id), {
      params: MatchParams,
      response: { 200: Match, ...errorResponses(404) },
      detail: { tags: ["matches"], summary: "One completed match", description: "With per-player profit/loss and the hand count." },
    })
    .get("/api/matches/:id/fairness", ({ params }) => matches.fairness(params.id), {
      params: MatchParams,
      response: { 200: Fairness, ...errorResponses(404) },
      detail: {
        tags: ["matches"],
        summary: "The deck secret of a completed match (provably fair deals)",
        description:
          "At match start the service publishes `deckCommitment` (SHA-256 of a 256-bit secret from the system CSPRNG) in `match_started` and in `GET /api/tables/{tableId}`. Once the match is over this reveals the secret: the deck of hand n is a pure function of (secret, n), algorithm `hmac-sha256-fisher-yates-v1` (docs/FAIRNESS.md), so anyone can re-derive every dealt card. 404 while the match runs, for an aborted match, and for a seeded match (it deals from its seed). The two copies of a duplicate match commit to one secret (each names the other in `twinMatchId`): each answers 404 until both have ended. A duplicate match recorded before the two-copy model says `hmac-sha256-fisher-yates-v1-duplicate` (hand n dealt from deck ⌈n / 2⌉).",
      },
    })
    .get(
      "/api/matches/:id/hands",
      ({ params, query, viewerId }) => handsPage(matches, params.id, query, viewerId),
      {
        optionalAuth: true,
        params: MatchParams,
        query: HandsQuery,
        response: { 200: t.Union([MatchHands, t.String({ description: "PHH text when format=phh" })]), ...errorResponses(400, 401, 404) },
        detail: {
          tags: ["matches"],
          summary: "The hand histories of a completed match, a page at a time",
          description: [
            "Every hand with every action, the board, showdown and pot awards, in hand order. Hole cards are shown only as they were at the table: a hand that was not shown down has `cards: null` in its `hole_cards` event (`????` in PHH). With your token you also get your own bots' hole cards (every card when every bot in the match is yours); a bad token is a 401. `seeded: true` marks a match dealt from a seed (never ranked).",
            `Paged: \`limit\` hands (JSON: default ${HANDS_PAGE.json.default}, at most ${HANDS_PAGE.json.max}) numbered above \`after\` (default 0, the start).`,
            'When more hands remain, the `Link` header names the next page: `</api/matches/{id}/hands?limit=200&after=200>; rel="next"`; no `Link` on the last page.',
            `\`?format=phh\` answers PHH (Poker Hand History, TOML) text: a hand history set with one table per hand ([1], [2], …), with the specification's \`hand\`, \`table\`, \`seat_count\`, \`seats\`, \`players\` fields and ours prefixed with \`_\` (\`_match\`, \`_seeded\`), streamed as it is read from the database, up to ${HANDS_PAGE.phh.max} hands per request (the default; \`limit\`/\`after\`/\`Link\` work the same), so a match of at most ${HANDS_PAGE.phh.max} hands is one file and longer ones are pages that concatenate into one.`,
          ].join(" "),
        },
      },
    );
}

/**
 * Both forms answer their own Response: a JSON page is stringified once, without Elysia's
 * response check (it would walk every event of up to 1,000 hands again); a PHH page is streamed.
 */
async function handsPage(
  matches: Matches,
  matchId: string,
  query: { format?: "json" | "phh"; limit?: number; after?: number },
  viewerId: string | null,
): Promise<Response> {
  const format = query.format ?? "json";
  const limits = HANDS_PAGE[format];
  const limit = query.limit ?? limits.default;
  if (limit > limits.max) throw errors.validation(`Invalid limit: at most ${limits.max} hands per ${format} page`, { field: "limit", max: limits.max });
  const page = { after: query.after ?? 0, limit };
  const nextLink = (next: number | null): Record<string, string> =>
    next === null ? {} : { link: `</api/matches/${matchId}/hands?${format === "phh" ? "format=phh&" : ""}limit=${limit}&after=${next}>; rel="next"` };
  if (format === "phh") {
    const { stream, next } = await matches.handsPhh(matchId, page, viewerId);
    return new Response(stream, { headers: { "content-type": "application/toml; charset=utf-8", ...nextLink(next) } });
  }
  const { body, next } = await matches.handsJson(matchId, page, viewerId);
  return new Response(JSON.stringify(body), { headers: { "content-type": "application/json", ...nextLink(next) } });
}
