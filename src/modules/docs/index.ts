import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { dirname, join } from "node:path";
import { ErrorResponse } from "../../lib/http";
import { polishOpenApi } from "./polish";
import { PAGE } from "../../lib/paging";

const SWAGGER_DIST = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css",
  "swagger-ui-bundle.js": "text/javascript",
  "favicon-32x32.png": "image/png",
};

/**
 * Swagger UI's page, ours rather than the plugin's: the plugin starts the UI from an inline
 * script, which the Content-Security-Policy (script-src 'self') forbids. Here everything it loads
 * is a file of this service, and no style is inline.
 */
const SWAGGER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Poker Bot Service · API</title><link rel="stylesheet" href="/swagger/assets/swagger-ui.css"><link rel="icon" href="/swagger/assets/favicon-32x32.png">
</head><body><div id="swagger-ui"></div>
<script src="/swagger/assets/swagger-ui-bundle.js"></script><script src="/swagger/assets/swagger-init.js"></script></body></html>`;
const SWAGGER_INIT = `window.ui = SwaggerUIBundle({ url: "/swagger/json", dom_id: "#swagger-ui", deepLinking: true });\n`;

/** OpenAPI JSON at /swagger/json and Swagger UI at /swagger, its assets served locally (no CDN). */
export function docsModule() {
  // The plugin caches its document object: polish each new one once.
  let polished: { from: unknown; doc: Record<string, unknown> } | null = null;
  return new Elysia({ name: "module:docs" })
    .model({ Error: ErrorResponse })
    // The Swagger UI page loads its document by a relative URL: from /swagger/ that would be /swagger/swagger/json.
    .onRequest(({ request }) => {
      if (request.url.endsWith("/swagger/") && new URL(request.url).pathname === "/swagger/") return Response.redirect(request.url.slice(0, -1), 308);
    })
    .onAfterHandle({ as: "global" }, ({ path, response }) => {
      if (path !== "/swagger/json" || !response || typeof response !== "object" || response instanceof Response) return;
      if (polished?.from !== response) polished = { from: response, doc: polishOpenApi(response as Record<string, unknown>) };
      return polished.doc;
    })
    .use(
      openapi({
        path: "/swagger",
        specPath: "/swagger/json",
        // The page is served below (no inline script); the plugin serves the document only.
        provider: null,
        // WebSocket routes are not OpenAPI operations: they are described in the text above and docs/PROTOCOL.md.
        exclude: { paths: [/^\/swagger/], methods: ["WS", "ws"] },
        documentation: {
          servers: [{ url: "/", description: "This service (every node of a cluster serves every route)" }],
          info: {
            title: "Poker Bot Service",
            version: "0.1.0",
            description: [
              "Developers register, claim credits from the faucet, register bots and seat them at no-limit hold'em tables.",
              "Credits are 1:1 with chips. Every balance change is one database transaction with its ledger row.",
              "",
              "Authentication: `POST /api/auth/register` or `/api/auth/login` returns a JWT; send it as `Authorization: Bearer <token>`.",
              "Every `/api/me/**` route and every write needs it. Reads of public records (bots, tables, matches, stats) do not.",
              "",
              "Errors: every error body is `{ error: { code, message, details? } }` — 400 VALIDATION_ERROR (details.field names the field),",
              "401 UNAUTHORIZED, 402 INSUFFICIENT_BALANCE, 403 FORBIDDEN, 404 NOT_FOUND, 409 CONFLICT (or EMAIL_TAKEN, BOT_NAME_TAKEN,",
              "BOT_ALREADY_SEATED, TABLE_FULL), 408 REQUEST_TIMEOUT (a body slower than BODY_TIMEOUT_MS, 10 s; the connection is closed),",
              "413 PAYLOAD_TOO_LARGE, 429 FAUCET_COOLDOWN / RATE_LIMITED (with Retry-After), 500 INTERNAL, and on any route that needs the",
              "database 503 DATABASE_UNAVAILABLE with Retry-After while this node cannot reach it (GET /health says so: retry, or another node).",
              "Request bodies are strict: unknown fields are rejected with 400, never silently dropped.",
              "",
              "IDs are opaque strings with a type prefix (dev_, bot_, tbl_, m_, tx_). Amounts are integers. Timestamps are ISO 8601 UTC.",
              "",
              "WebSockets (not listed below): `GET /api/bots/connect` — the bot protocol; connect with the bot's api key",
              "(`Authorization: Bearer pbk_…` or `?apiKey=`), messages in docs/PROTOCOL.md. `GET /api/tables/{tableId}/watch` —",
              "a live table's public messages for spectators (no hole cards before showdown), no authentication.",
              "",
              "Conventions: X-Request-Id (sent or generated) is echoed on every response. CORS: public GETs from any origin (`*`, no credentials);",
              "CORS_ORIGINS lists origins that may call every route. OPTIONS answers 204 with Allow; a known path with a wrong method is 405",
              "METHOD_NOT_ALLOWED with Allow. Public JSON reads carry a weak ETag (If-None-Match → 304) and Cache-Control: public, no-cache;",
              "reads with a token are private, no-store. JSON over 1 KiB is br- or gzip-compressed when Accept-Encoding asks.",
              "",
              `Pagination, one style on every list (GitHub's): the body is a bare array; \`limit\` (default ${PAGE.default}, at most ${PAGE.max});`,
              "when more items follow, `Link: <…>; rel=\"next\"` names the next page (follow it as is), and the last page has none. Cursors are keyset",
              "(newest-first lists continue `before` an id, the others `after` one), so items added meanwhile never shift a page.",
              "Two exceptions, by design: `GET /api/bots` without parameters is the brief's whole list; a match's hands page by hand number (default 200).",
              "",
              "Limits: request bodies ≤ MAX_BODY_BYTES (64 KiB, else 413); register + login 30 a minute per client IP (429 RATE_LIMITED",
              "with Retry-After); a bot's socket 50 messages a second besides its answers (error RATE_LIMITED).",
            ].join("\n"),
          },
          tags: [
            { name: "health", description: "Readiness for a load balancer (/health, /health/ready: 503 while the database is unreachable or the lease does not stand) and liveness (/health/live)" },
            { name: "identity", description: "Developer accounts and tokens" },
            { name: "bots", description: "Bot registration and api keys" },
            { name: "credits", description: "Balance, faucet and the transaction ledger" },
            { name: "tables", description: "Tables, seats and live watching" },
            { name: "matches", description: "Match records, hand histories and deck fairness" },
            { name: "stats", description: "The brief's per-bot statistics and netChips leaderboard" },
            { name: "ratings", description: "Skill ratings with uncertainty (OpenSkill) and win rates with confidence intervals" },
            { name: "ladder", description: "The rated ladder: enter a bot once and it plays rated matches by itself (docs/LADDER.md)" },
            { name: "agents", description: "LLM agents: /mcp, a Model Context Protocol server (Streamable HTTP) with the developer's token (docs/INTEROP.md)" },
            { name: "challenges", description: "A match of your bot against another developer's bot that is open to challenges: both owners pay their buy-ins; never rated (docs/COMPETITIONS.md)" },
            { name: "tournaments", description: "Events: sit-and-go freezeouts with rising blinds (docs/COMPETITIONS.md); entries are seats paid by ordinary buy-ins" },
            { name: "hosted", description: "Hosted bots: upload a bot file and the service plays it in a sandbox (docs/HOSTED.md); code and logs are its owner's only" },
          ],
          components: {
            securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
          },
        },
      }),
    )
    .get("/swagger", () => new Response(SWAGGER_PAGE, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } }), { detail: { hide: true } })
    .get(
      "/swagger/assets/:file",
      ({ params }) => {
        if (params.file === "swagger-init.js") return new Response(SWAGGER_INIT, { headers: { "content-type": "text/javascript; charset=utf-8" } });
        const type = ASSETS[params.file];
        if (!type) return new Response("Not found", { status: 404 });
        return new Response(Bun.file(join(SWAGGER_DIST, params.file)), { headers: { "content-type": type } });
      },
      { detail: { hide: true } },
    );
}
