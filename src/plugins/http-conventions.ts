/**
 * The HTTP conventions browser and SDK users expect, in one place:
 * - X-Request-Id: taken from the request (letters, digits, `._-`, ≤ 128) or generated; echoed on
 *   every response and named in every log line of that request (requestIdOf);
 * - CORS: CORS_ORIGINS unset (or `*`): any origin may read public GETs (`*`, never with credentials);
 *   a list of origins: those may call every route (bearer tokens, no cookies, so no credentials).
 *   Preflights answer 204 with the methods of the path and the headers we read;
 * - OPTIONS on a known path: 204 with Allow; a known path with a wrong method: 405 with Allow (errorHandler);
 * - public JSON reads: a weak ETag, `If-None-Match` → 304, `Cache-Control: public, no-cache`
 *   (always revalidated, so never stale); authenticated reads `private, no-store`;
 * - JSON over 1 KiB compressed (br, else gzip) when the client accepts it.
 */
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants, gzip } from "node:zlib";
import { Elysia } from "elysia";

const REQUEST_IDS = new WeakMap<Request, string>();
const VALID_ID = /^[A-Za-z0-9._-]{1,128}$/;
const COMPRESS_ABOVE = 1024;
const COMPRESS_OFF_LOOP_ABOVE = 64 * 1024;
const EXPOSED = "ETag, Idempotent-Replayed, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id";
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id";

/**
 * On every response. The pages and Swagger UI load only the service's own scripts and styles (no
 * inline script, no inline style attribute: the scripts set positions through the DOM), may not
 * be framed (clickjacking on Swagger's try-it-out), and tell the browser not to guess types.
 * `data:` images: Swagger UI's stylesheet draws its icons with them. `connect-src 'self'` covers
 * the spectator WebSocket on the same host.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/** The id of a request (for log lines): the one it carried, or the one we gave it. */
export function requestIdOf(request: Request): string {
  return REQUEST_IDS.get(request) ?? "-";
}

/** Path → the methods its routes answer (HEAD with GET, OPTIONS always). */
export type MethodsOf = (path: string) => string[] | null;

export function methodsOfRoutes(routes: () => ReadonlyArray<{ method: string; path: string }>): MethodsOf {
  let table: Array<{ pattern: RegExp; methods: Set<string> }> | null = null;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const { method, path } of routes()) {
      if (method === "WS" || method === "ALL" || path.includes("*")) continue;
      const key = path.replace(/:[^/]+/g, ":");
      if (!byPath.has(key)) byPath.set(key, new Set());
      byPath.get(key)!.add(method === "GET" ? "GET, HEAD" : method);
    }
    return [...byPath].map(([key, methods]) => ({ pattern: new RegExp(`^${key.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:/g, "[^/]+")}/?$`), methods }));
  };
  return (path) => {
    table ??= build();
    const methods = new Set<string>();
    for (const entry of table) if (entry.pattern.test(path)) for (const m of entry.methods) methods.add(m);
    if (methods.size === 0) return null;
    const order = ["GET, HEAD", "POST", "PUT", "PATCH", "DELETE"];
    return [...[...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b)), "OPTIONS"];
  };
}

function corsOrigin(origins: string[] | "*", origin: string | null, publicRead: boolean): string | null {
  if (!origin) return null;
  if (origins === "*") return publicRead ? "*" : null;
  return origins.includes(origin) ? origin : null;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Small bodies are compressed in place (a thread hop costs more than they do); above
 * COMPRESS_OFF_LOOP_ABOVE on the thread pool, so a large answer never stalls the event loop
 * (30 parallel brotli answers of a 26 MB list once delayed /health by 2.4 s).
 */
async function compress(body: string, acceptEncoding: string): Promise<{ body: Uint8Array | string; encoding: string | null }> {
  if (body.length <= COMPRESS_ABOVE) return { body, encoding: null };
  const offLoop = body.length > COMPRESS_OFF_LOOP_ABOVE;
  const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
  if (/\bbr\b/.test(acceptEncoding)) return { body: offLoop ? await brotliAsync(body, brotliOptions) : brotliCompressSync(body, brotliOptions), encoding: "br" };
  if (/\bgzip\b/.test(acceptEncoding)) return { body: offLoop ? await gzipAsync(body) : Bun.gzipSync(body), encoding: "gzip" };
  return { body, encoding: null };
}

export function httpConventions(options: { corsOrigins: string[] | "*"; methodsOf: MethodsOf }) {
  return new Elysia({ name: "http-conventions" })
    .onRequest(({ request, set }) => {
      const given = request.headers.get("x-request-id");
      const id = given && VALID_ID.test(given) ? given : crypto.randomUUID();
      REQUEST_IDS.set(request, id);
      Object.assign(set.headers, SECURITY_HEADERS);
      set.headers["x-request-id"] = id;
      const origin = request.headers.get("origin");
      const publicRead = (request.method === "GET" || request.method === "HEAD") && !request.headers.has("authorization");
      const allowed = corsOrigin(options.corsOrigins, origin, publicRead);
      if (origin) set.headers.vary = "Origin";
      if (allowed) {
        set.headers["access-control-allow-origin"] = allowed;
        set.headers["access-control-expose-headers"] = EXPOSED;
      }
      if (request.method !== "OPTIONS") return;
      const path = new URL(request.url).pathname;
      const methods = options.methodsOf(path);
      if (!methods) return; // the error handler answers 404
      const headers: Record<string, string> = { ...(set.headers as Record<string, string>), allow: methods.join(", ") };
      const asked = request.headers.get("access-control-request-method");
      if (origin && asked) {
        // The preflight of a public read may be answered `*` only when it carries no credentials.
        const askedHeaders = (request.headers.get("access-control-request-headers") ?? "").toLowerCase();
        const preflightOrigin = corsOrigin(options.corsOrigins, origin, (asked === "GET" || asked === "HEAD") && !askedHeaders.includes("authorization"));
        delete headers["access-control-allow-origin"];
        if (preflightOrigin) {
          Object.assign(headers, {
            "access-control-allow-origin": preflightOrigin,
            "access-control-allow-methods": methods.join(", "),
            "access-control-allow-headers": ALLOWED_HEADERS,
            "access-control-max-age": "600",
          });
        }
      }
      return new Response(null, { status: 204, headers });
    })
    .mapResponse({ as: "global" }, async ({ request, response, set }) => {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      const status = typeof set.status === "number" ? set.status : 200;
      let body: string;
      let headers: Record<string, string>;
      if (response instanceof Response) {
        // Streams (PHH pages) and responses that keep their own ETag are left as they are.
        if (response.status !== 200 || response.headers.has("etag") || !response.headers.get("content-type")?.startsWith("application/json")) return;
        body = await response.text();
        headers = Object.fromEntries(response.headers);
      } else if (status === 200 && response !== null && typeof response === "object") {
        body = JSON.stringify(response);
        headers = { "content-type": "application/json" };
      } else return;
      const personal = request.headers.has("authorization");
      headers.vary = ["Authorization", "Accept-Encoding", set.headers.vary].filter(Boolean).join(", ");
      if (personal) headers["cache-control"] = "private, no-store";
      else {
        const etag = `W/"${Bun.hash(body).toString(36)}"`;
        Object.assign(headers, { etag, "cache-control": "public, no-cache" });
        const wanted = request.headers.get("if-none-match");
        if (wanted && wanted.split(",").some((tag) => tag.trim() === etag)) return new Response(null, { status: 304, headers: { etag, "cache-control": headers["cache-control"], vary: headers.vary } });
      }
      const packed = await compress(body, request.headers.get("accept-encoding") ?? "");
      if (packed.encoding) headers["content-encoding"] = packed.encoding;
      return new Response(packed.body, { status: 200, headers });
    });
}
