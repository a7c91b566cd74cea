import { Elysia } from "elysia";
import type { TrustProxy } from "../../lib/client-address";
import { errors } from "../../lib/errors";
import { metricsAccess } from "./access";
import type { Metrics } from "./service";

type PeerServer = { requestIP(request: Request): { address: string } | null } | null;

/** GET /metrics: the Prometheus text exposition, guarded by metricsAccess. Hidden from the API docs (it is for operators). */
export function metricsModule(metrics: Metrics, access: { token: string | undefined; trustProxy: TrustProxy }) {
  return new Elysia({ name: "module:metrics" }).get(
    "/metrics",
    async ({ request, server, set }) => {
      const peer = (server as PeerServer)?.requestIP(request)?.address ?? null;
      const verdict = metricsAccess(request, peer, access.token, access.trustProxy);
      if (verdict === "token_required") {
        set.headers["www-authenticate"] = 'Bearer realm="metrics"';
        throw errors.unauthorized("GET /metrics needs METRICS_TOKEN as a bearer token");
      }
      if (verdict === "loopback_only") throw errors.forbidden("GET /metrics answers only clients on this machine (set METRICS_TOKEN to scrape from elsewhere)");
      return new Response(await metrics.text(), { headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" } });
    },
    { detail: { hide: true } },
  );
}

const STARTED = new WeakMap<Request, number>();
const STATUS = new WeakMap<Request, number>();

/**
 * Counts and times every HTTP request by method, route TEMPLATE (`/api/tables/:tableId`, never
 * the path: ids would make the series unbounded) and status. Paths no route matched share
 * route="unmatched" (status 404, a wrong method on a known path included); methods outside the
 * usual few share "other" (both are attacker-chosen). The status is read where the final body is
 * mapped (the error handler answers with a Response that `set.status` does not reflect).
 */
export function httpMetrics(metrics: Metrics) {
  return new Elysia({ name: "plugin:http-metrics" })
    .onRequest(({ request }) => {
      STARTED.set(request, performance.now());
    })
    .mapResponse({ as: "global" }, ({ request, responseValue, set }) => {
      STATUS.set(request, responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200);
    })
    .onAfterResponse({ as: "global" }, (context) => {
      const { request } = context;
      const started = STARTED.get(request);
      if (started === undefined) return;
      const route = (context as { route?: string }).route || "unmatched";
      const status = STATUS.get(request) ?? ((context as { code?: unknown }).code === "NOT_FOUND" ? 404 : context.set.status);
      const labels = { method: METHODS.has(request.method) ? request.method : "other", route, status: String(status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    });
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
