import { Elysia } from "elysia";

const STARTED = new WeakMap<Request, number>();
const STATUS = new WeakMap<Request, number>();

/**
 * When each request started and the status it was answered with, for whatever reports on requests
 * once they are answered (metrics, the request log). The status is read where the final body is
 * mapped: the error handler answers with a Response that `set.status` does not reflect; a path no
 * route matched never gets there (404).
 */
export const requestOutcome = new Elysia({ name: "plugin:request-outcome" })
  .onRequest(({ request }) => {
    STARTED.set(request, performance.now());
  })
  .mapResponse({ as: "global" }, ({ request, responseValue, set }) => {
    STATUS.set(request, responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200);
  });

export interface RequestOutcome {
  /** The route template (`/api/tables/:tableId`), never the path; "unmatched" when no route matched. */
  route: string;
  status: number;
  durationMs: number;
}

/** In an afterResponse hook: what became of the request (null if it bypassed the plugin). */
export function outcomeOf(context: { request: Request; route?: string; code?: unknown; set: { status?: unknown } }): RequestOutcome | null {
  const started = STARTED.get(context.request);
  if (started === undefined) return null;
  const status = STATUS.get(context.request) ?? (context.code === "NOT_FOUND" ? 404 : typeof context.set.status === "number" ? context.set.status : 200);
  return { route: context.route || "unmatched", status, durationMs: performance.now() - started };
}
