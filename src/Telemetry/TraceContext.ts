import * as Headers from "effect/http/Headers"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"

/** How a request is known to traces and logs, decided once when it arrives (src/Http/ServerSpans.ts). */
export interface RequestTrace {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
  /** the server span of a sampled request, ended where the request is answered */
  readonly span: Tracer.Span | undefined
}

/** Random hex ids for trace (32) and span (16) ids; randomUUID is one native call (the byte loop cost ~3% of a request). */
export const randomHex = (bytes: 8 | 16) => {
  const hex = crypto.randomUUID().replace(/-/g, "")
  return bytes === 16 ? hex : hex.slice(0, 16)
}

export const traceparentOf = (trace: RequestTrace) => `00-${trace.traceId}-${trace.spanId}-${trace.sampled ? "01" : "00"}`

/** The caller's span, from `traceparent` or B3 headers, if it sent one. */
export const callerSpanOf = (headers: globalThis.Headers): Tracer.ExternalSpan | undefined => {
  if (!headers.has("traceparent") && !headers.has("b3") && !headers.has("x-b3-traceid")) return undefined
  return Option.getOrUndefined(HttpTraceContext.fromHeaders(Headers.fromInput(headers)))
}

/** A request without a span of its own: the caller's trace (or a fresh one) and an id for its answer, not sampled. */
export const unsampledTrace = (traceId: string): RequestTrace => ({
  traceId,
  spanId: randomHex(8),
  sampled: false,
  span: undefined
})
