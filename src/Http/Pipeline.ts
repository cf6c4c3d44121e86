import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import { AppConfig } from "../Config.js"
import { pathAndQuery, pathOf } from "./Url.js"
import { LogWriter } from "../Logging.js"
import { rememberRequestIds } from "../RequestTrace.js"
import { inFlightHooks, InFlightRequests } from "../Shutdown.js"
import { withSpan } from "../Spans.js"
import { RequestLines } from "../Telemetry/RequestLines.js"
import { traceparentOf } from "../Telemetry/TraceContext.js"
import type { Answer } from "./Answer.js"
import { type Admitted, Edge } from "./Edge.js"
import { envelope, routeNotFoundMessage } from "./Errors.js"
import { bytesOf, outcomesOf, writeRequestLine } from "./Observe.js"
import { makeRequestMeter } from "./RequestMetrics.js"
import { ServerSpans } from "./ServerSpans.js"

/** The router's answer to the request in context. */
export type App = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | Scope.Scope>

/** An answer as the platform's response: the content type and length follow the body. */
const toResponse = (answer: Answer): HttpServerResponse.HttpServerResponse => {
  const options = { status: answer.status, headers: answer.headers, contentType: answer.headers["content-type"] }
  if (answer.body === undefined) return HttpServerResponse.empty(options)
  if (typeof answer.body === "string") return HttpServerResponse.text(answer.body, options)
  if (answer.body instanceof Uint8Array) return HttpServerResponse.uint8Array(answer.body, options)
  if (answer.body instanceof Blob) return HttpServerResponse.raw(answer.body, options)
  return HttpServerResponse.stream(answer.body.stream, { ...options, contentLength: answer.body.contentLength })
}

const EMPTY = new Uint8Array(0)
const NO_HEADERS: Readonly<Record<string, string>> = {}
const ENCODER = new TextEncoder()

const isRouteNotFound = (error: unknown) =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

/**
 * The order of the steps for a request the front door did not answer, in one place:
 * observe (sampling and the server span, in-flight count, the log line) -> the edge's decisions
 * (src/Http/Edge.ts), unless the front door already made them -> the router and handler -> the
 * answer's headers. Only a sampled request runs with Effect's tracer on, under its server span.
 */
export const makePipeline = Effect.gen(function*() {
  const edge = yield* Edge
  const config = yield* AppConfig
  const hooks = inFlightHooks(yield* InFlightRequests)
  const spans = yield* ServerSpans
  const writeLine = (yield* RequestLines).exported(yield* LogWriter)
  const meter = makeRequestMeter(config)

  /**
   * The router's response, answered with the edge's headers; a failure that escaped it is still the
   * envelope. Every admitted request passes here, so this is where its client's slot is held.
   */
  const route = (app: App, admitted: Admitted): Effect.Effect<Answer, never, HttpServerRequest.HttpServerRequest | Scope.Scope> =>
    edge.inSlot(admitted, Effect.flatMap(Effect.exit(app), (exit) => {
      if (Exit.isSuccess(exit)) {
        const { body, headers, status } = exit.value
        // a handler that answers ranges itself (says Accept-Ranges) made its whole answer: a file is a Raw Blob
        if (headers["accept-ranges"] !== undefined) {
          const own = body._tag === "Raw" && body.body instanceof Blob ? body.body : body._tag === "Uint8Array" ? body.body : undefined
          if (body._tag === "Empty" || own !== undefined) return Effect.succeed(edge.passOn(admitted, status, headers, own))
        }
        if (body._tag === "Uint8Array") return Effect.succeed(edge.finish(admitted, status, body.body, body.contentType, headers))
        if (body._tag === "Empty") return Effect.succeed(edge.finish(admitted, status, EMPTY, "", headers))
        // a stream goes out as it comes: never read whole here, so never compressed nor stored
        if (body._tag === "Stream") return Effect.succeed(edge.stream(admitted, status, body, headers))
      } else if (Cause.hasInterruptsOnly(exit.cause)) {
        return Effect.interrupt
      } else if (isRouteNotFound(Cause.squash(exit.cause))) {
        const body = ENCODER.encode(envelope("not_found", routeNotFoundMessage(admitted.facts.path)))
        return Effect.succeed(edge.finish(admitted, 404, body, "application/json", NO_HEADERS))
      }
      return Effect.as(
        Effect.logError("response not answerable", Exit.isFailure(exit) ? exit.cause : "unexpected body"),
        edge.failed(admitted, 500, "Something went wrong on our side; it has been logged.")
      )
    }))

  return (app: App): App =>
    Effect.withFiber((fiber) => {
      const startedAt = performance.now()
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const source = request.source as Request
      const handed = edge.takeHandedOn(source)
      const trace = handed?.trace ?? spans.begin(source.headers, request.method, pathOf(pathAndQuery(source.url)))
      const traceparent = traceparentOf(trace)
      rememberRequestIds(request, trace)
      hooks.started()
      const origin = meter?.accepted(source) ?? 0

      // what the log line names: the path and route the edge found (our 414/431 come before a route)
      let path: string | undefined
      let template: string | undefined
      let answered: Effect.Effect<Answer, never, HttpServerRequest.HttpServerRequest | Scope.Scope>
      if (handed !== undefined && "admitted" in handed) {
        path = handed.admitted.facts.path
        template = handed.admitted.route.template
        answered = route(app, handed.admitted)
      } else {
        const screened = handed?.screened ?? edge.screen(edge.factsOf(source, Option.getOrUndefined(request.remoteAddress)), traceparent)
        if ("answer" in screened) {
          answered = Effect.succeed(screened.answer)
        } else {
          path = screened.facts.path
          template = screened.route?.template
          const looksUp = edge.cacheOn && screened.kind === "public" && screened.route !== undefined && request.method !== "OPTIONS"
          const verdict = Effect.flatMap(edge.limit(screened), (decision) => {
            const decided = Effect.sync(() => edge.decide(screened, decision, traceparent))
            if (!looksUp) return decided
            return decided.pipe(
              Effect.tap((v) => Effect.annotateCurrentSpan("cache.hit", "answer" in v && v.answer.headers["x-cache"] === "hit")),
              withSpan("ResponseCache.lookup")
            )
          })
          answered = Effect.flatMap(verdict, (v) => ("answer" in v ? Effect.succeed(v.answer) : route(app, v.admitted)))
        }
      }

      const span = trace.span
      const traced = span === undefined ? answered : answered.pipe(Effect.withParentSpan(span), Effect.withTracerEnabled(true))
      return traced.pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            hooks.ended()
            const durationMs = performance.now() - startedAt
            const status = Exit.isSuccess(exit) ? exit.value.status : HttpServerError.exitResponse(Exit.failCause(exit.cause)).status
            meter?.answered(origin, template, status, durationMs)
            const lineWanted = !LogLevel.isLessThan("Info", fiber.getRef(References.MinimumLogLevel))
            if (!lineWanted && span === undefined) return
            // a client that hangs up is logged too (499)
            const answer: Answer = Exit.isSuccess(exit) ? exit.value : { status, headers: {}, body: undefined }
            const outcomes = outcomesOf(answer)
            const loggedPath = path ?? pathOf(pathAndQuery(source.url))
            const clientAddress = Option.getOrElse(request.remoteAddress, () => "")
            if (span !== undefined) {
              spans.end(span, {
                method: request.method,
                path: loggedPath,
                route: template,
                status,
                clientAddress,
                userAgent: source.headers.get("user-agent"),
                outcomes,
                failure: Exit.isFailure(exit) ? exit.cause : undefined
              })
            }
            if (!lineWanted) return
            writeRequestLine(writeLine, {
              method: request.method,
              path: loggedPath,
              route: template,
              status,
              durationMs,
              bytes: bytesOf(request.method, answer),
              traceId: trace.traceId,
              spanId: trace.spanId,
              clientAddress,
              outcomes
            })
          })
        ),
        Effect.map(toResponse)
      )
    })
})
