import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as LogLevel from "effect/LogLevel"
import { AppConfig } from "../Config.js"
import { LogWriter } from "../Logging.js"
import { RequestLines } from "../Telemetry/RequestLines.js"
import { traceparentOf } from "../Telemetry/TraceContext.js"
import { type Answer, toWebResponse } from "./Answer.js"
import { Edge } from "./Edge.js"
import { bytesOf, outcomesOf, writeRequestLine } from "./Observe.js"
import { makeRequestMeter } from "./RequestMetrics.js"
import { ServerSpans } from "./ServerSpans.js"

/** Answers a request straight from Bun's `fetch`, or leaves it (undefined) to the Effect pipeline. */
export type FrontDoor = (request: Request, server: { requestIP(request: Request): { address: string } | null }) => Response | undefined

/**
 * Whether the front door answers what it can. Always, but where the pipeline alone must answer
 * every request (test/front-door.test.ts compares the two adapters' bytes).
 */
export const FrontDoorEnabled = Context.Reference<boolean>("catalogue/FrontDoorEnabled", { defaultValue: () => true })

/**
 * The edge's decisions made before the Effect runtime (src/Http/Edge.ts), for what needs no I/O:
 * our size limits, unknown paths, wrong methods, the rate limit and its 429, cache hits and 304s
 * are answered here with the pipeline's exact bytes, headers and log line; the rest goes on to
 * the pipeline with what was decided. With buckets in Redis, a client's token comes from the
 * slice this process holds (src/RateLimit/Slices.ts); a client with none in hand goes on to the
 * pipeline, which asks Redis. Sampling is decided here too (src/Http/ServerSpans.ts): a sampled
 * request answered here has its server span recorded here, without a fiber; one handed on takes
 * its span along. Staff requests go on undecided but for their route: verifying a token is
 * asynchronous.
 */
export const makeFrontDoor: Effect.Effect<
  FrontDoor | undefined,
  never,
  AppConfig | Edge | ServerSpans | RequestLines | LogWriter
> = Effect.gen(function*() {
  const config = yield* AppConfig
  const edge = yield* Edge
  const spans = yield* ServerSpans
  const takeNow = edge.takeNow
  if (!(yield* FrontDoorEnabled)) return undefined
  const logged = !LogLevel.isLessThan("Info", config.logLevel)
  const writeLine = (yield* RequestLines).exported(yield* LogWriter)
  const meter = makeRequestMeter(config)

  return (request, server) => {
    const startedAt = performance.now()
    const socket = server.requestIP(request)?.address
    const facts = edge.factsOf(request, socket)
    const trace = spans.begin(request.headers, facts.method, facts.path)
    const traceparent = traceparentOf(trace)
    const screened = edge.screen(facts, traceparent)
    let answer: Answer
    if ("answer" in screened) {
      answer = screened.answer
    } else if (screened.kind === "staff") {
      edge.handOn(request, { trace, screened })
      return undefined
    } else {
      const counted = screened.kind !== "health"
      const decision = counted ? takeNow(facts.clientKey) : undefined
      // no token of the client's bucket in hand without I/O: the pipeline asks Redis for it
      if (counted && decision === undefined) {
        edge.handOn(request, { trace, screened })
        return undefined
      }
      const verdict = edge.decide(screened, decision, traceparent)
      if ("admitted" in verdict) {
        edge.handOn(request, { trace, admitted: verdict.admitted })
        return undefined
      }
      answer = verdict.answer
    }
    const route = "answer" in screened ? undefined : screened.route?.template
    const durationMs = performance.now() - startedAt
    meter?.counted(meter.originOf(request), route, answer.status, durationMs)
    if (trace.span !== undefined) {
      spans.end(trace.span, {
        method: facts.method,
        path: facts.path,
        route,
        status: answer.status,
        clientAddress: socket ?? "",
        userAgent: request.headers.get("user-agent"),
        outcomes: outcomesOf(answer)
      })
    }
    if (logged) {
      writeRequestLine(writeLine, {
        method: facts.method,
        path: facts.path,
        route,
        status: answer.status,
        durationMs,
        bytes: bytesOf(facts.method, answer),
        traceId: trace.traceId,
        spanId: trace.spanId,
        clientAddress: socket ?? "",
        outcomes: outcomesOf(answer)
      })
    }
    return toWebResponse(facts.method, answer)
  }
})
