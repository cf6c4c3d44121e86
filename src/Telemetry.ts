import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { API_VERSION } from "./Api.js"
import type { InfoLineWriter } from "./Logging.js"
import { rememberTraceId } from "./RequestTrace.js"
import { AppConfig } from "./Config.js"
import { pathOf } from "./Domain/Url.js"
import { routeOf } from "./Http.js"

/**
 * Tracing (DESIGN D13): spans go out over OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set. Without it the tracer is switched off altogether, so `Effect.withSpan` in repositories
 * and the SQL client's per-statement spans cost next to nothing.
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Layer.setTracerEnabled(false),
      onSome: (endpoint) =>
        OtlpTracer.layer({
          url: `${endpoint}/v1/traces`,
          resource: { serviceName: config.serviceName, serviceVersion: API_VERSION },
          exportInterval: "2 seconds"
        }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
    })
  )
)

const HEALTH_PATHS = new Set(["/v1/health", "/v1/health/ready"])

/** `GET /v1/songs/:songId`: the span name OpenTelemetry's HTTP conventions ask for; the method alone off-route. */
export const spanNameOf = (request: HttpServerRequest.HttpServerRequest) => {
  const route = routeOf(pathOf(request.url))
  return route === undefined ? request.method : `${request.method} ${route}`
}

/**
 * The server span per request, named by its route template. Switched off when tracing is off
 * (the span alone costs 30-65% of throughput, FINDINGS) and for health probes, which would
 * drown the traces that matter.
 */
export const withRequestTracing = <A, E, R>(server: Layer.Layer<A, E, R>): Layer.Layer<A, E, R | AppConfig> =>
  Layer.unwrapEffect(
    Effect.map(AppConfig, (config) => {
      const tracing = Option.isSome(config.otlpEndpoint)
      return server.pipe(
        HttpMiddleware.withSpanNameGenerator(spanNameOf),
        HttpMiddleware.withTracerDisabledWhen((request) => !tracing || HEALTH_PATHS.has(pathOf(request.url)))
      )
    })
  )

type AnnotationValue = string | number | boolean

/** Facts other parts of the pipeline add about the current request; see annotateRequest. */
const currentRequestAnnotations = globalValue(
  Symbol.for("catalogue/Telemetry/requestAnnotations"),
  () => FiberRef.unsafeMake<Map<string, AnnotationValue> | undefined>(undefined)
)

/**
 * Adds a fact about the current request to both its server span (as an attribute) and its
 * request log line: e.g. `annotateRequest("ratelimit.outcome", "limited")` from the rate
 * limiter, `annotateRequest("cache", "hit")` from the response cache. Outside a request it does nothing.
 */
export const annotateRequest = (key: string, value: AnnotationValue): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRequestAnnotations), (annotations) => void annotations?.set(key, value))

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

/**
 * The ids a request is known by: its server span's when tracing, otherwise the caller's trace
 * or a fresh one, so logs and responses correlate either way.
 */
const traceIdsOf = (span: Option.Option<Tracer.Span>, request: HttpServerRequest.HttpServerRequest): TraceIds => {
  if (Option.isSome(span) && span.value.traceId !== "noop") {
    return { traceId: span.value.traceId, spanId: span.value.spanId, sampled: span.value.sampled }
  }
  const caller = HttpTraceContext.fromHeaders(request.headers)
  return unsampledTraceIds(Option.isSome(caller) ? caller.value.traceId : undefined)
}

/** Bytes of the body as sent (0 for HEAD, 204 and 304); undefined for a stream of unknown length. */
const bytesSent = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => {
  if (request.method === "HEAD" || response.status === 204 || response.status === 304) return 0
  const body = response.body
  switch (body._tag) {
    case "Empty":
      return 0
    case "Uint8Array":
      return body.body.byteLength
    case "Raw":
      return typeof body.body === "string" ? Buffer.byteLength(body.body) : body.contentLength
    case "Stream":
      return body.contentLength
    case "FormData":
      return undefined
  }
}

/**
 * What the edge decided, read from the headers it documents (D3, D4): the rate-limit outcome
 * (`limited` with a 429, `allowed` when the limit headers are there, `exempt` for health checks
 * and valid staff tokens) and whether the response cache answered (`X-Cache: hit|miss`).
 */
const edgeOutcomes = (response: HttpServerResponse.HttpServerResponse): Record<string, AnnotationValue> => {
  const outcomes: Record<string, AnnotationValue> = {
    "ratelimit.outcome": response.status === 429 ? "limited" : response.headers["ratelimit"] !== undefined ? "allowed" : "exempt"
  }
  const cache = response.headers["x-cache"]?.toLowerCase()
  if (cache !== undefined) outcomes["cache"] = cache
  return outcomes
}

/** What the outermost step does around the rest of the pipeline, without Effect steps of its own. */
export interface RequestHooks {
  /** Runs as the request starts (e.g. counting it in flight). */
  readonly started: (request: HttpServerRequest.HttpServerRequest) => void
  /** Runs once it is over, whatever the outcome. */
  readonly ended: () => void
  /** The first change to every response, before the edge's (charset, no-store on errors). */
  readonly finish: (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  /** Where the request line goes (src/Logging.ts makeInfoLineWriter). */
  readonly writeLine: InfoLineWriter
}

/**
 * The outermost step of the pipeline, one Effect step for what used to be three: gives every
 * response a `traceparent` header carrying its trace id (D2) together with the hooks' own
 * finishing touches in one pre-response handler, and writes one log line per request once the
 * response is sent (D13).
 */
export const observeRequests = (app: HttpApp.Default, hooks: RequestHooks): HttpApp.Default =>
  Effect.withFiberRuntime((fiber) => {
    const startedAt = performance.now()
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const span = Context.getOption(fiber.currentContext, Tracer.ParentSpan).pipe(
      Option.filter((parent): parent is Tracer.Span => parent._tag === "Span")
    )
    const ids = traceIdsOf(span, request)
    // Nothing to record when the request line is below LOG_LEVEL and there is no span: skip the work.
    const lineWanted = !LogLevel.lessThan(LogLevel.Info, fiber.getFiberRef(FiberRef.currentMinimumLogLevel))
    const logged = Option.isSome(span) || lineWanted
    const traceparent = traceparentOf(ids)
    hooks.started(request)
    rememberTraceId(request, ids.traceId)
    const annotations = new Map<string, AnnotationValue>()
    const observed = HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(hooks.finish(HttpServerResponse.setHeader(response, "traceparent", traceparent)))
    ).pipe(
      Effect.zipRight(logged ? Effect.locally(app, currentRequestAnnotations, annotations) : app),
      Effect.exit,
      // also when the fiber is interrupted (shutdown, a client that hangs up)
      Effect.ensuring(Effect.sync(hooks.ended))
    )
    return Effect.flatMap(observed, (exit) => {
      if (logged) recordRequest(request, exit, span, ids, annotations, startedAt, lineWanted ? hooks.writeLine : undefined, fiber.id())
      return exit
    })
  })

/** The request's facts on its span, and its log line (when LOG_LEVEL lets it through). */
const recordRequest = (
  request: HttpServerRequest.HttpServerRequest,
  exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>,
  span: Option.Option<Tracer.Span>,
  ids: TraceIds,
  annotations: Map<string, AnnotationValue>,
  startedAt: number,
  writeLine: InfoLineWriter | undefined,
  fiberId: FiberId.FiberId
) => {
  // A client that hangs up is logged too (499), with what it would have got otherwise.
  const response = HttpServerError.exitResponse(exit)
  const outcomes = edgeOutcomes(response)
  for (const [key, value] of Object.entries(outcomes)) if (!annotations.has(key)) annotations.set(key, value)
  if (Option.isSome(span)) for (const [key, value] of annotations) span.value.attribute(key, value)
  if (writeLine === undefined) return
  writeRequestLine(writeLine, {
    method: request.method,
    path: pathOf(request.url),
    status: response.status,
    durationMs: performance.now() - startedAt,
    bytes: bytesSent(request, response),
    traceId: ids.traceId,
    clientAddress: Option.getOrElse(request.remoteAddress, () => ""),
    annotations
  }, fiberId)
}

/** What one request's log line says (D13). */
export interface RequestLine {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  /** undefined for a stream of unknown length */
  readonly bytes: number | undefined
  readonly traceId: string
  readonly clientAddress: string
  readonly annotations: ReadonlyMap<string, AnnotationValue>
}

/** The one log line of a request, named by its route: from the pipeline and the front door alike. */
export const writeRequestLine = (write: InfoLineWriter, line: RequestLine, fiberId?: FiberId.FiberId) => {
  const route = routeOf(line.path)
  write(`${line.method} ${route ?? line.path} ${line.status}`, {
    "http.method": line.method,
    "http.route": route ?? "",
    "url.path": line.path,
    "http.status": line.status,
    duration_ms: Math.round(line.durationMs * 10) / 10,
    bytes: line.bytes ?? "",
    trace_id: line.traceId,
    "client.address": line.clientAddress,
    ...Object.fromEntries(line.annotations)
  }, fiberId)
}
