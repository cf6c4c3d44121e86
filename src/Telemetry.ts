import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as OtlpTracer from "effect/observability/OtlpTracer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Headers from "effect/http/Headers"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as References from "effect/References"
import type * as Tracer from "effect/Tracer"
import { API_VERSION } from "./Api.js"
import { AppConfig } from "./Config.js"
import * as OtlpMetrics from "effect/observability/OtlpMetrics"

/**
 * Tracing and metrics (docs/operations.md): spans and metrics go out over OTLP/HTTP (JSON) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Without it the tracer is switched off altogether, so
 * `Effect.withSpan` in repositories and the SQL client's per-statement spans cost next to nothing.
 */
export const TracingLive = Layer.unwrap(
  AppConfig.useSync((config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Layer.succeed(References.TracerEnabled, false),
      onSome: (endpoint) => {
        const resource = { serviceName: config.serviceName, serviceVersion: API_VERSION }
        return Layer.mergeAll(
          OtlpTracer.layer({ url: `${endpoint}/v1/traces`, resource, exportInterval: "2 seconds" }),
          OtlpMetrics.layer({ url: `${endpoint}/v1/metrics`, resource, exportInterval: "10 seconds" })
        ).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
      }
    })
  )
)

/** Random hex ids for trace (32) and span (16) ids; randomUUID is one native call (the byte loop cost ~3% of a request). */
const randomHex = (bytes: 8 | 16) => {
  const hex = crypto.randomUUID().replace(/-/g, "")
  return bytes === 16 ? hex : hex.slice(0, 16)
}

export interface TraceIds {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

/** Ids for a request without a span of its own: the caller's trace (an incoming `traceparent`) or a fresh one. */
export const unsampledTraceIds = (callerTraceId: string | undefined): TraceIds => ({
  traceId: callerTraceId ?? randomHex(16),
  spanId: randomHex(8),
  sampled: false
})

export const traceparentOf = (ids: TraceIds) => `00-${ids.traceId}-${ids.spanId}-${ids.sampled ? "01" : "00"}`

/** The caller's trace id, from `traceparent` or B3 headers, if it sent one. */
export const callerTraceId = (headers: globalThis.Headers): string | undefined => {
  if (!headers.has("traceparent") && !headers.has("b3") && !headers.has("x-b3-traceid")) return undefined
  const caller = HttpTraceContext.fromHeaders(Headers.fromInput(headers))
  return Option.isSome(caller) ? caller.value.traceId : undefined
}

/**
 * The ids a request is known by: its server span's when tracing, otherwise the caller's trace
 * or a fresh one, so logs and responses correlate either way.
 */
export const traceIdsOf = (span: Option.Option<Tracer.Span>, headers: globalThis.Headers): TraceIds =>
  Option.isSome(span) && span.value.traceId !== "noop"
    ? { traceId: span.value.traceId, spanId: span.value.spanId, sampled: span.value.sampled }
    : unsampledTraceIds(callerTraceId(headers))
