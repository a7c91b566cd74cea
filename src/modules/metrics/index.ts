import { Elysia } from "elysia";
import type { TrustProxy } from "../../lib/client-address";
import { errors } from "../../lib/errors";
import { outcomeOf, requestOutcome } from "../../plugins/request-outcome";
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

/**
 * Counts and times every HTTP request by method, route TEMPLATE (`/api/tables/:tableId`, never
 * the path: ids would make the series unbounded) and status. Paths no route matched share
 * route="unmatched" (status 404, a wrong method on a known path included); methods outside the
 * usual few share "other" (both are attacker-chosen).
 */
export function httpMetrics(metrics: Metrics) {
  return new Elysia({ name: "plugin:http-metrics" })
    .use(requestOutcome)
    .onAfterResponse({ as: "global" }, (context) => {
      const outcome = outcomeOf(context);
      if (!outcome) return;
      const labels = { method: METHODS.has(context.request.method) ? context.request.method : "other", route: outcome.route, status: String(outcome.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, outcome.durationMs / 1000);
    });
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
