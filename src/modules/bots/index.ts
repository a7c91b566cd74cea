import { Elysia, t } from "elysia";
import { AppError } from "../../lib/errors";
import { errorResponses } from "../../lib/http";
import type { ListEncoding } from "./directory";
import { nextLink, PAGE, PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { IdempotencyHeaders, type IdempotencyKeys } from "../../plugins/idempotency";
import { Bot, BotListQuery, BotParams, CreateBotBody, CreatedBot, OwnedBot, OwnedBotsQuery, PublicBot, RetiredBot, RotatedKey } from "./model";
import { toBotView, type Bots } from "./service";

/**
 * The whole list, as one shared body per version, in the encoding asked for (compressed once per
 * version, off the event loop). At most `concurrency` such requests at once on this node; beyond,
 * 503 SERVICE_BUSY with Retry-After, so a flood cannot queue without bound.
 */
function wholeListAnswer(bots: Bots, concurrency: number) {
  let inFlight = 0;
  return async (request: Request): Promise<Response> => {
    if (inFlight >= concurrency) {
      throw new AppError(503, "SERVICE_BUSY", `This node is answering ${concurrency} whole bot lists already: retry, or read pages (?limit=)`, undefined, { "Retry-After": "1" });
    }
    inFlight += 1;
    try {
      const list = await bots.wholeList();
      const accept = request.headers.get("accept-encoding") ?? "";
      const encoding: ListEncoding = /\bbr\b/.test(accept) ? "br" : /\bgzip\b/.test(accept) ? "gzip" : "identity";
      const etag = encoding === "identity" ? list.etag : `${list.etag.slice(0, -1)}-${encoding}"`;
      const headers: Record<string, string> = { "content-type": "application/json", etag, vary: "Accept-Encoding", "cache-control": "public, no-cache" };
      if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
      if (encoding !== "identity") headers["content-encoding"] = encoding;
      return new Response(await list.body(encoding), { headers });
    } finally {
      inFlight -= 1;
    }
  };
}

export function botsModule(bots: Bots, auth: AuthOptions, keys: IdempotencyKeys, options: { wholeListConcurrency: number }) {
  const wholeList = wholeListAnswer(bots, options.wholeListConcurrency);
  return new Elysia({ name: "module:bots" })
    .use(authPlugin(auth))
    .post(
      "/api/bots",
      ({ developerId, body, set, request, headers }) =>
        keys.once({ developerId, request, body, headers, set }, async () => {
          const created = await bots.create(developerId, body);
          set.status = 201;
          return created;
        }),
      {
        auth: true,
        parse: "json",
        headers: IdempotencyHeaders,
        body: CreateBotBody,
        response: { 201: CreatedBot, ...errorResponses(400, 401, 409, 422) },
        detail: {
          tags: ["bots"],
          summary: "Register a bot",
          description:
            "Creates a bot owned by the caller (at most MAX_BOTS_PER_DEVELOPER, 200: beyond, 409 TOO_MANY_BOTS). The `apiKey` (pbk_…) is shown once, here (and a new one on rotate-key): the service stores only its SHA-256, so a replay of this request with the same Idempotency-Key answers `apiKey: null`; if the key is lost, rotate it. Remote bots connect with it to /api/bots/connect. With `strategy`, the service plays the bot itself. The ladder house's names (`house-<strategy>`, `house-<strategy>-<n>`, any case) are its own: 409 BOT_NAME_RESERVED.",
        },
      },
    )
    .get(
      "/api/bots",
      async ({ query, request }) => {
        if (query.limit === undefined && query.offset === undefined && query.after === undefined) return wholeList(request);
        const page = await bots.page(query);
        const headers: Record<string, string> = { "content-type": "application/json", etag: page.etag };
        if (page.next !== null) headers.link = nextLink("/api/bots", { limit: query.limit ?? PAGE.default, after: page.next });
        if (request.headers.get("if-none-match") === page.etag) return new Response(null, { status: 304, headers });
        return new Response(page.json, { headers });
      },
      {
        query: BotListQuery,
        response: { 200: t.Array(Bot), ...errorResponses(400, 503) },
        detail: {
          tags: ["bots"],
          summary: "List all registered bots",
          description: `Every registered bot, oldest first (the brief's array of all bots): without parameters the whole list, kept by each node and extended from an index as bots are added, with an \`ETag\` (send it back as \`If-None-Match\` for a 304), compressed once per version (br or gzip, as \`Accept-Encoding\` asks). At most BOT_LIST_CONCURRENCY (256) whole-list requests at once per node: beyond, 503 SERVICE_BUSY with Retry-After. With \`limit\`, \`after\` (a botId) or the older \`offset\`, one page: ${PAGING_RULE} 400 for an \`after\` that names no bot.`,
        },
      },
    )
    .get(
      "/api/me/bots",
      async ({ developerId, query, set }) => {
        const page = await bots.listOwned(developerId, query);
        return withNextLink(set, { items: await bots.ownedViews(page.items), next: page.next }, "/api/me/bots", (after) => ({ limit: query.limit, after }));
      },
      {
        auth: true,
        query: OwnedBotsQuery,
        response: { 200: t.Array(OwnedBot), ...errorResponses(400, 401) },
        detail: {
          tags: ["bots"],
          summary: "The caller's own bots",
          description: `Your bots in service (retired ones are left out), oldest first, with each bot's strategy (null for a remote or hosted bot), whether it is hosted and its code's current version. Api keys are never shown again. ${PAGING_RULE} The cursor is \`after\`, a botId.`,
        },
      },
    )
    .delete(
      "/api/bots/:botId",
      ({ developerId, params, set, request, headers }) => keys.once({ developerId, request, headers, set }, () => bots.retire(developerId, params.botId)),
      {
        auth: true,
        params: BotParams,
        headers: IdempotencyHeaders,
        response: { 200: RetiredBot, ...errorResponses(400, 401, 403, 404, 409, 422) },
        detail: {
          tags: ["bots"],
          summary: "Retire a bot",
          description:
            "Owner only. The bot plays no more: joins answer 409 BOT_RETIRED, its api key stops working (an open socket, on any node, gets `error` KEY_ROTATED and is closed), rotate-key is refused, and its name is free for a new bot. Its records stay: GET /api/bots/{botId}, its statistics, ratings, matches and hand histories still resolve, and it stays in GET /api/bots (the list of every bot ever registered) but leaves GET /api/me/bots and no longer counts toward MAX_BOTS_PER_DEVELOPER. Refused with 409 BOT_SEATED while it holds a seat (leave the table first; during a match, after its end). Retiring a retired bot answers the same 200 again.",
        },
      },
    )
    .get(
      "/api/bots/:botId",
      async ({ params, viewerId }) => {
        const bot = await bots.find(params.botId);
        const [owned] = await bots.ownedViews([bot]);
        if (viewerId !== bot.developerId) return { ...toBotView(bot), hosted: owned.hosted, house: owned.house };
        return owned;
      },
      {
        optionalAuth: true,
        params: BotParams,
        response: { 200: t.Union([OwnedBot, PublicBot]), ...errorResponses(400, 401, 404) },
        detail: {
          tags: ["bots"],
          summary: "One bot",
          description:
            "The brief's four fields and `hosted` (whether the service runs its uploaded code: public by design, docs/HOSTED.md). To its owner (with a bearer token), the owner's view: also its strategy and its code's current version.",
        },
      },
    )
    .post("/api/bots/:botId/rotate-key", ({ developerId, params, set, request, headers }) => keys.once({ developerId, request, headers, set }, () => bots.rotateKey(developerId, params.botId)), {
      auth: true,
      params: BotParams,
      headers: IdempotencyHeaders,
      response: { 200: RotatedKey, ...errorResponses(400, 401, 403, 404, 409, 422) },
      detail: { tags: ["bots"], summary: "Rotate a bot's api key", description: "Owner only. 409 BUILT_IN_BOT for a built-in (it has no key). The new key is shown once (a replay with the same Idempotency-Key answers `apiKey: null`: rotate again if it was lost). The old key stops working at once: a socket already open with it, on any node, gets an `error` KEY_ROTATED and is closed (code 4001); the bot reconnects with the new key." },
    });
}
