/**
 * Requests that need the database fail fast while this node cannot reach it, instead of hanging
 * (a network path that drops packets keeps every socket open and answers nothing: postgres.js
 * would wait for good). Reachability is the probe's (src/db/probe.ts: its own connection, bounded),
 * so a slow but healthy database under load, whose pool queues requests, never trips it.
 * - at admission (an onRequest hook): while the probe says unreachable, 503
 *   DATABASE_UNAVAILABLE with Retry-After at once, before anything runs;
 * - in flight (a wrapper around the app's fetch): a request already waiting on the database when
 *   the probe says it is gone is answered the same 503 then. Its handler runs on (as after a
 *   client disconnect): what it wrote may land when the path heals, so the answer says it may have
 *   been applied (an Idempotency-Key replay tells).
 * Health, metrics, the API document and static assets need no database and are always served.
 */
import { Elysia } from "elysia";
import type { DatabaseReachability } from "../db/probe";
import { AppError } from "../lib/errors";
import { jsonError } from "../lib/http";

const RETRY_AFTER_SECONDS = "2";
const NO_DATABASE_NEEDED = /^\/(health(\/.*)?|metrics|swagger(\/.*)?|assets\/.*)$/;

function needsDatabase(request: Request): boolean {
  if (request.method === "OPTIONS") return false;
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  return !NO_DATABASE_NEEDED.test(start < 0 ? "/" : url.slice(start, end < 0 ? undefined : end));
}

type Handle = (request: Request) => unknown;

/**
 * `changes`: whether reachability can change at all (false for the embedded database, which lives
 * in this process): without changes, nothing is wrapped.
 */
export function databaseGate(database: DatabaseReachability, changes: boolean) {
  const plugin = new Elysia({ name: "plugin:database-gate" }).onRequest(({ request }) => {
    if (database.reachable() || !needsDatabase(request)) return;
    throw new AppError(503, "DATABASE_UNAVAILABLE", "This node cannot reach its database now: retry (another node may answer)", undefined, {
      "Retry-After": RETRY_AFTER_SECONDS,
    });
  });
  if (!changes) return plugin;
  const waiting = new Set<() => void>();
  database.onChange((reachable) => {
    if (!reachable) for (const answer of [...waiting]) answer();
  });
  const lostWhileAnswering = () =>
    jsonError(503, "DATABASE_UNAVAILABLE", "This node lost its database while answering: the request may or may not have been applied; retry (with the same Idempotency-Key to learn which)", undefined, {
      "Retry-After": RETRY_AFTER_SECONDS,
    });
  // Elysia's hook around its compiled fetch (what `listen` serves and `handle` calls): it survives
  // the recompilation `listen` does, where replacing `app.fetch` would not.
  return plugin.wrap(((handle: Handle) => (request: Request) => {
    const result = handle(request);
    // A WebSocket upgrade is Bun's to answer (admission gated it already).
    if (!(result instanceof Promise) || request.headers.get("upgrade") || !needsDatabase(request)) return result;
    return new Promise((resolve, reject) => {
      const lost = () => {
        waiting.delete(lost);
        resolve(lostWhileAnswering());
      };
      waiting.add(lost);
      result.then(
        (response) => (waiting.delete(lost), resolve(response)),
        (error) => (waiting.delete(lost), reject(error)),
      );
    });
  }) as never);
}
