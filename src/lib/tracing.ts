/**
 * The tracing seam. With OTEL_EXPORTER_OTLP_ENDPOINT set, server.ts loads `tracing-otel.ts` (a
 * dynamic import, as the NATS client is loaded) and spans go there; unset, every call below is
 * the no-op `NO_TRACING` and no OpenTelemetry SDK module is ever loaded. What is traced (HTTP
 * requests, ledger operations, match start/end/resume, table commands between nodes) is wired
 * from outside the features: plugins/http-tracing.ts, modules/metrics/traces.ts, and the table
 * relay, whose bus messages carry the W3C trace context (`traceparent`).
 *
 * Span attributes are ids, names, counts and codes only: never a secret, token, api key or card
 * (an error is reduced to its code or class: a driver's message may quote the rows it wrote).
 */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The W3C trace context a message between nodes carries. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

export type SpanKind = "internal" | "server" | "client";

export interface SpanOptions {
  kind?: SpanKind;
  /** Continue this trace (a message from another node, an HTTP request's headers) instead of the current one. */
  parent?: TraceCarrier;
}

export interface ActiveSpan {
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
}

/** A span its starter ends (an HTTP request: its route and status are known only after the response). */
export interface OpenSpan extends ActiveSpan {
  /** Runs `work` with this span as the current one (its callees' spans are its children). */
  run<T>(work: () => T): T;
  /** `failure`: a status ≥ 500 or an error (its code or class only). */
  end(failure?: string): void;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Runs `work` in a span, a child of the current one (or of `options.parent`); an error marks it and is rethrown. */
  span<T>(name: string, attributes: SpanAttributes, work: (span: ActiveSpan) => Promise<T>, options?: SpanOptions): Promise<T>;
  start(name: string, attributes: SpanAttributes, options?: SpanOptions): OpenSpan;
  /** `message` with the current trace context added (as `traceparent`), for a request to another node; itself when there is none. */
  carry<M extends object>(message: M): M;
  /** Resolves once every span ended so far has been exported (answered by the collector): tests; shutdown. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `${endpoint}/v1/traces` as OTLP/HTTP JSON. */
  endpoint: string;
  /** OTEL_SERVICE_NAME (default poker-bot-service); every span also carries service.instance.id = HOST_ID. */
  serviceName: string;
  /** OTEL_BSP_SCHEDULE_DELAY: how often buffered spans are sent (default 5000 ms). */
  scheduleDelayMs: number;
}

const NOOP_SPAN: OpenSpan = {
  setAttributes() {},
  updateName() {},
  run: (work) => work(),
  end() {},
};

/** Tracing off: each call costs a function call, and nothing is recorded. */
export const NO_TRACING: Tracing = {
  enabled: false,
  span: (_name, _attributes, work) => work(NOOP_SPAN),
  start: () => NOOP_SPAN,
  carry: (message) => message,
  flush: async () => {},
  shutdown: async () => {},
};

/** The error as a span may say it: an application error's code, else the error's class (never its message). */
export function failureOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z_]+$/.test(code)) return code;
  return error instanceof Error ? error.constructor.name : "error";
}
