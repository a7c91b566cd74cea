/** One span as an OTLP/HTTP JSON receiver got it, with the node (service.instance.id) that sent it. */
export interface ReceivedSpan {
  node: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ""));
const attributesOf = (list: Array<{ key: string; value: AnyValue }> = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * A tiny OTLP/HTTP collector on a loopback port: POST /v1/traces (JSON) only. `hold()` keeps its
 * answers back until the function it returns is called (an export in flight, for as long as a test
 * needs one); the spans of a held request are recorded when it arrives.
 */
export function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  let held: Promise<void> | null = null;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      const text = await request.text();
      bodies.push(text);
      const body = JSON.parse(text) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: AnyValue }> }; scopeSpans: Array<{ spans: any[] }> }> };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const node = String(attributesOf(resourceSpans.resource?.attributes)["service.instance.id"] ?? "");
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ node, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? "", name: span.name, attributes: attributesOf(span.attributes) });
        }
      }
      if (held) await held;
      return Response.json({});
    },
  });
  const hold = (): (() => void) => {
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      held = null;
      release();
    };
  };
  return { url: `http://127.0.0.1:${server.port}`, spans, bodies, hold, stop: () => server.stop(true) };
}
