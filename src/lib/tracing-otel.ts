import { AsyncLocalStorage } from "node:async_hooks";
import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { failureOf, type OpenSpan, type SpanAttributes, type SpanOptions, type Tracing, type TracingSettings } from "./tracing";

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;

/**
 * OpenTelemetry behind the seam (imported by server.ts only when an endpoint is set). One
 * provider per app (tests run several apps in one process), and no global registration: the
 * current span lives in an AsyncLocalStorage of this instance and parents are passed explicitly.
 */
export function openTelemetryTracing(settings: TracingSettings, hostId: string): Tracing {
  const exporter = new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.serviceName, "service.instance.id": hostId }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.scheduleDelayMs })],
  });
  const tracer = provider.getTracer("poker-bot-service");
  const current = new AsyncLocalStorage<Context>();
  const propagator = new W3CTraceContextPropagator();

  const parentOf = (options: SpanOptions | undefined): Context =>
    options?.parent?.traceparent ? propagator.extract(ROOT_CONTEXT, options.parent, defaultTextMapGetter) : (current.getStore() ?? ROOT_CONTEXT);

  function start(name: string, attributes: SpanAttributes, options?: SpanOptions): OpenSpan {
    const parent = parentOf(options);
    const span: Span = tracer.startSpan(name, { kind: KINDS[options?.kind ?? "internal"], attributes }, parent);
    const context = trace.setSpan(parent, span);
    return {
      setAttributes: (more) => void span.setAttributes(more),
      updateName: (renamed) => void span.updateName(renamed),
      run: (work) => current.run(context, work),
      end(failure) {
        if (failure) {
          span.setAttribute("error.type", failure);
          span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
        }
        span.end();
      },
    };
  }

  return {
    enabled: true,
    start,
    async span(name, attributes, work, options) {
      const open = start(name, attributes, options);
      try {
        const result = await open.run(() => work(open));
        open.end();
        return result;
      } catch (error) {
        open.end(failureOf(error));
        throw error;
      }
    },
    carry(message) {
      const context = current.getStore();
      if (!context || !trace.getSpan(context)) return message;
      const carrier: Record<string, string> = {};
      propagator.inject(context, carrier, defaultTextMapSetter);
      return { ...message, ...carrier };
    },
    // The provider's flush sends only what is still buffered: a batch its timer already handed to
    // the exporter may still be on the wire. The exporter's own flush waits for those too.
    flush: async () => {
      await provider.forceFlush();
      await exporter.forceFlush();
    },
    shutdown: () => provider.shutdown(),
  };
}
