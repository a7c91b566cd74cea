import { Elysia } from "elysia";
import type { OpenSpan, Tracing } from "../lib/tracing";
import { outcomeOf, requestOutcome } from "./request-outcome";

/**
 * One server span per HTTP request (only used with tracing on): named `METHOD /route/:template`
 * once routed (never the path: ids), with its status; an incoming W3C `traceparent` header is
 * continued. The request's handling runs inside the span, so ledger operations and table
 * commands forwarded to other nodes are its children.
 */
export function httpTracing(tracing: Tracing) {
  const spans = new WeakMap<Request, OpenSpan>();
  return new Elysia({ name: "plugin:http-tracing" })
    .use(requestOutcome)
    .wrap((handle, request: Request) => {
      const parent = request.headers.get("traceparent");
      const span = tracing.start(`HTTP ${request.method}`, { "http.request.method": request.method }, { kind: "server", parent: parent ? { traceparent: parent, tracestate: request.headers.get("tracestate") ?? undefined } : undefined });
      spans.set(request, span);
      return ((...args: unknown[]) => span.run(() => (handle as (...a: unknown[]) => unknown)(...args))) as typeof handle;
    })
    .onAfterResponse({ as: "global" }, (context) => {
      const span = spans.get(context.request);
      if (!span) return;
      spans.delete(context.request);
      const outcome = outcomeOf(context);
      const route = outcome?.route ?? "unmatched";
      const status = outcome?.status ?? 0;
      span.updateName(`${context.request.method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": status });
      span.end(status >= 500 ? String(status) : undefined);
    });
}
