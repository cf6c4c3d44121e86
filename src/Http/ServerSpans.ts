import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { AppConfig } from "../Config.js"
import { makeSampler } from "../Telemetry/Sampler.js"
import { exportsOf } from "../Telemetry/Signals.js"
import { callerSpanOf, randomHex, type RequestTrace, unsampledTrace } from "../Telemetry/TraceContext.js"
import { matchRoute } from "./Routes.js"

/** What a server span records of the answer, when it ends. */
export interface Answered {
  readonly method: string
  readonly path: string
  /** the route template the path matched, as the edge found it */
  readonly route: string | undefined
  readonly status: number
  readonly clientAddress: string
  readonly userAgent: string | null
  /** what the edge decided (Observe.outcomesOf): `ratelimit.outcome`, `cache` */
  readonly outcomes: Readonly<Record<string, string>>
  /** why the pipeline failed, where it did */
  readonly failure?: Cause.Cause<unknown> | undefined
}

/**
 * One server span per sampled request, decided where the request arrives (the front door, or
 * the pipeline without it) and recorded where it is answered, without a fiber at the front door.
 * The decision: OTEL_TRACES_SAMPLER over the caller's `traceparent` (or B3) and the trace id;
 * never a health probe; never while traces are not exported. An unsampled request gets no span
 * and its answer says so (flags `00`), with the caller's trace id or a fresh one.
 */
export class ServerSpans extends Context.Service<ServerSpans, {
  readonly begin: (headers: globalThis.Headers, method: string, path: string) => RequestTrace
  readonly end: (span: Tracer.Span, answered: Answered) => void
}>()("catalogue/ServerSpans") {
  static readonly layer = Layer.effect(
    ServerSpans,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const tracer = yield* Tracer.Tracer
      const clock = yield* Clock.Clock
      const traced = exportsOf(config.telemetry).traces !== undefined
      const sampled = makeSampler(config.telemetry.sampler, config.telemetry.samplerRatio)

      const begin = (headers: globalThis.Headers, method: string, path: string): RequestTrace => {
        const caller = callerSpanOf(headers)
        const traceId = caller?.traceId ?? randomHex(16)
        if (!traced || !sampled(caller, traceId)) return unsampledTrace(traceId)
        const route = matchRoute(path)
        if (route?.kind === "health") return unsampledTrace(traceId)
        const span = tracer.span({
          // OpenTelemetry's HTTP conventions: the route template, the method alone off-route
          name: route === undefined ? method : `${method} ${route.template}`,
          parent: caller === undefined ? Option.none() : Option.some(caller),
          annotations: Context.empty(),
          links: [],
          startTime: clock.currentTimeNanosUnsafe(),
          kind: "server",
          root: caller === undefined,
          sampled: true
        })
        return { traceId: span.traceId, spanId: span.spanId, sampled: true, span }
      }

      const end = (span: Tracer.Span, answered: Answered) => {
        span.attribute("http.request.method", answered.method)
        span.attribute("url.scheme", "http")
        span.attribute("url.path", answered.path)
        if (answered.route !== undefined) span.attribute("http.route", answered.route)
        span.attribute("http.response.status_code", answered.status)
        if (answered.clientAddress !== "") span.attribute("client.address", answered.clientAddress)
        if (answered.userAgent !== null) span.attribute("user_agent.original", answered.userAgent)
        for (const key in answered.outcomes) span.attribute(key, answered.outcomes[key])
        const failed = answered.status >= 500
        if (failed) span.attribute("error.type", String(answered.status))
        const exit = answered.failure !== undefined
          ? Exit.failCause(answered.failure)
          : failed
          ? Exit.fail(`HTTP ${answered.status}`)
          : Exit.void
        span.end(clock.currentTimeNanosUnsafe(), exit)
      }

      return { begin, end }
    })
  )
}
