import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { BOT_PAGE_MAX, Bot, BotListQuery, BotParams, CreateBotBody, CreatedBot, OwnedBot, RotatedKey } from "./model";
import { toBotView, type Bots } from "./service";

export function botsModule(bots: Bots, auth: AuthOptions) {
  return new Elysia({ name: "module:bots" })
    .use(authPlugin(auth))
    .post(
      "/api/bots",
      async ({ developerId, body, set }) => {
        const created = await bots.create(developerId, body);
        set.status = 201;
        return created;
      },
      {
        auth: true,
        parse: "json",
        body: CreateBotBody,
        response: { 201: CreatedBot, ...errorResponses(400, 401, 409) },
        detail: {
          tags: ["bots"],
          summary: "Register a bot",
          description:
            "Creates a bot owned by the caller (at most MAX_BOTS_PER_DEVELOPER, 200: beyond, 409 TOO_MANY_BOTS). The `apiKey` (pbk_…) is returned only here and on rotate-key; remote bots connect with it to /api/bots/connect. With `strategy`, the service plays the bot itself.",
        },
      },
    )
    .get(
      "/api/bots",
      async ({ query, request }) => {
        const page = await bots.list(query);
        const headers: Record<string, string> = { "content-type": "application/json", etag: page.etag };
        if (page.next !== null) headers.link = `</api/bots?limit=${query.limit ?? BOT_PAGE_MAX}&after=${page.next}>; rel="next"`;
        if (request.headers.get("if-none-match") === page.etag) return new Response(null, { status: 304, headers });
        return new Response(page.json, { headers });
      },
      {
        query: BotListQuery,
        response: { 200: t.Array(Bot), ...errorResponses(400) },
        detail: {
          tags: ["bots"],
          summary: "List all registered bots",
          description: `Every registered bot, oldest first (the brief's array of all bots): without parameters the whole list, kept by each node and extended from an index as bots are added, with an \`ETag\` (send it back as \`If-None-Match\` for a 304). Pages: \`limit\` (1–${BOT_PAGE_MAX}) and \`after\` (a botId), or the older \`offset\`; when more bots follow, the \`Link\` header names the next page (\`</api/bots?limit=N&after=bot_…>; rel="next"\`). 400 for an \`after\` that names no bot.`,
        },
      },
    )
    .get("/api/me/bots", ({ developerId }) => bots.listOwned(developerId), {
      auth: true,
      response: { 200: t.Array(OwnedBot), ...errorResponses(401) },
      detail: { tags: ["bots"], summary: "The caller's own bots", description: "Oldest first, with each bot's strategy (null for a remote bot). Api keys are never shown again." },
    })
    .get("/api/bots/:botId", async ({ params }) => toBotView(await bots.find(params.botId)), {
      params: BotParams,
      response: { 200: Bot, ...errorResponses(400, 404) },
      detail: { tags: ["bots"], summary: "One bot" },
    })
    .post("/api/bots/:botId/rotate-key", ({ developerId, params }) => bots.rotateKey(developerId, params.botId), {
      auth: true,
      params: BotParams,
      response: { 200: RotatedKey, ...errorResponses(400, 401, 403, 404) },
      detail: { tags: ["bots"], summary: "Rotate a bot's api key", description: "Owner only. The old key stops working at once: a socket already open with it, on any node, gets an `error` KEY_ROTATED and is closed (code 4001); the bot reconnects with the new key." },
    });
}
