// Optional OpenTelemetry traces (docs/operating.md, "Traces"). With OTEL_EXPORTER_OTLP_ENDPOINT
// set, startTracing loads the official packages and spans go to that OTLP/HTTP endpoint: one
// per request (src/plugins/tracing.plugin.ts), per database statement and per webhook delivery.
// Unset, none of those packages is loaded and `traced` costs one check.
import type { Context, Span, Tracer } from '@opentelemetry/api'

interface Loaded {
  api: typeof import('@opentelemetry/api')
  tracer: Tracer
}

let loaded: Loaded | undefined

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to <endpoint>/v1/traces. */
  endpoint: string
  serviceName: string
  version: string
}

/** Loads the SDK and sends spans from now on; resolves to the function that flushes and stops it. */
export async function startTracing(options: TracingOptions): Promise<() => Promise<void>> {
  const [api, { TracerProvider, BatchSpanProcessor }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }, { OTLPTraceExporter }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/exporter-trace-otlp-http'),
    ])
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.version }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` }) })],
  })
  api.trace.setGlobalTracerProvider(provider)
  loaded = { api, tracer: provider.getTracer('engage', options.version) }
  return async () => {
    loaded = undefined
    await provider.shutdown()
    api.trace.disable()
    api.context.disable()
    api.propagation.disable()
  }
}

/** Runs `fn` inside a span (a child of the active one) when tracing is on, else just runs it. */
export function traced<T>(name: string, attributes: Record<string, string | number>, fn: () => Promise<T>): Promise<T> {
  const on = loaded
  if (!on) return fn()
  return on.tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn()
    } catch (err) {
      failed(span, err)
      throw err
    } finally {
      span.end()
    }
  })
}

function failed(span: Span, err: unknown): void {
  const api = loaded?.api
  if (!api) return
  span.recordException(err instanceof Error ? err : String(err))
  span.setStatus({ code: api.SpanStatusCode.ERROR })
}

/** A request's server span, its parent taken from the caller's traceparent header; undefined when tracing is off. */
export function startServerSpan(name: string, headers: Record<string, unknown>, attributes: Record<string, string | number>): { span: Span; context: Context } | undefined {
  const on = loaded
  if (!on) return undefined
  const { api, tracer } = on
  const parent = api.propagation.extract(api.ROOT_CONTEXT, headers)
  const span = tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes }, parent)
  return { span, context: api.trace.setSpan(parent, span) }
}

/** Runs `fn` with `context` active, so the spans started under it are its children. */
export function withContext<T>(context: Context, fn: () => T): T {
  return loaded ? loaded.api.context.with(context, fn) : fn()
}

export function endServerSpan(span: Span, status: number, err?: unknown): void {
  span.setAttribute('http.response.status_code', status)
  if (err !== undefined || status >= 500) failed(span, err ?? `status ${String(status)}`)
  span.end()
}
