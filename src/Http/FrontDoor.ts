import * as Effect from "effect/Effect"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { AppConfig } from "../Config.js"
import { LogWriter } from "../Logging.js"
import { callerTraceId, traceparentOf, unsampledTraceIds } from "../Telemetry.js"
import { type Answer, toWebResponse } from "./Answer.js"
import { Edge } from "./Edge.js"
import { bytesOf, outcomesOf, writeRequestLine } from "./Observe.js"
import { makeRequestMeter } from "./RequestMetrics.js"

/** Answers a request straight from Bun's `fetch`, or leaves it (undefined) to the Effect pipeline. */
export type FrontDoor = (request: Request, server: { requestIP(request: Request): { address: string } | null }) => Response | undefined

/**
 * The edge's decisions made before the Effect runtime (src/Http/Edge.ts), for what needs no I/O:
 * our size limits, unknown paths, wrong methods, the rate limit and its 429, cache hits and 304s
 * are answered here with the pipeline's exact bytes, headers and log line; the rest goes on to
 * the pipeline with what was decided. Only where it can be exact: without tracing (requests then
 * get their server span in the pipeline). With buckets in Redis, a client's token comes from the
 * slice this process holds (src/RateLimit/Slices.ts); a client with none in hand goes on to the
 * pipeline, which asks Redis. Staff requests go on undecided but for their route: verifying a
 * token is asynchronous.
 */
export const makeFrontDoor: Effect.Effect<FrontDoor | undefined, never, AppConfig | Edge | LogWriter> = Effect.gen(function*() {
  const config = yield* AppConfig
  const edge = yield* Edge
  const takeNow = edge.takeNow
  if (Option.isSome(config.otlpEndpoint)) return undefined
  const logged = !LogLevel.isLessThan("Info", config.logLevel)
  const writeLine = yield* LogWriter
  const meter = makeRequestMeter(config)

  return (request, server) => {
    const startedAt = performance.now()
    const ids = unsampledTraceIds(callerTraceId(request.headers))
    const traceparent = traceparentOf(ids)
    const socket = server.requestIP(request)?.address
    const facts = edge.factsOf(request, socket)
    const screened = edge.screen(facts, traceparent)
    let answer: Answer
    if ("answer" in screened) {
      answer = screened.answer
    } else if (screened.kind === "staff") {
      edge.handOn(request, { ids, screened })
      return undefined
    } else {
      const counted = screened.kind !== "health"
      const decision = counted ? takeNow(facts.clientKey) : undefined
      // no token of the client's bucket in hand without I/O: the pipeline asks Redis for it
      if (counted && decision === undefined) {
        edge.handOn(request, { ids, screened })
        return undefined
      }
      const verdict = edge.decide(screened, decision, traceparent)
      if ("admitted" in verdict) {
        edge.handOn(request, { ids, admitted: verdict.admitted })
        return undefined
      }
      answer = verdict.answer
    }
    const route = "answer" in screened ? undefined : screened.route?.template
    const durationMs = performance.now() - startedAt
    meter?.counted(meter.originOf(request), route, answer.status, durationMs)
    if (logged) {
      writeRequestLine(writeLine, {
        method: facts.method,
        path: facts.path,
        route,
        status: answer.status,
        durationMs,
        bytes: bytesOf(facts.method, answer),
        traceId: ids.traceId,
        spanId: ids.spanId,
        clientAddress: socket ?? "",
        outcomes: outcomesOf(answer)
      })
    }
    return toWebResponse(facts.method, answer)
  }
})
