import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Effect from "effect/Effect"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { AppConfig } from "../Config.js"
import { JSON_CONTENT_TYPE } from "../Domain/Json.js"
import { makeInfoLineWriter } from "../Logging.js"
import { pathAndQuery, pathOf } from "../Domain/Url.js"
import { makeClientKeys } from "../RateLimit/ClientAddress.js"
import { RateLimiter } from "../RateLimit/RateLimiter.js"
import { traceparentOf, unsampledTraceIds, writeRequestLine } from "../Telemetry.js"
import { answerRepresentation, frontDoorAnswersHits, publicEdgeHeaders, rateLimitedEnvelope } from "./Answers.js"
import { cacheHits, ResponseCache } from "./ResponseCache.js"

/** Answers a request straight from Bun's `fetch`, or leaves it (undefined) to the Effect pipeline. */
export type FrontDoor = (request: Request, server: { requestIP(request: Request): { address: string } | null }) => Response | undefined

const callerTraceId = (headers: globalThis.Headers): string | undefined => {
  if (!headers.has("traceparent") && !headers.has("b3") && !headers.has("x-b3-traceid")) return undefined
  const caller = HttpTraceContext.fromHeaders(Headers.fromInput(headers))
  return Option.isSome(caller) ? caller.value.traceId : undefined
}

/** HEAD says the length GET would send, as the pipeline's responses do. */
const respond = (method: string, status: number, headers: Record<string, string>, body: Uint8Array | string | undefined, length: number) => {
  if (method !== "HEAD" || body === undefined) return new Response(body ?? null, { status, headers })
  headers["content-length"] = String(length)
  return new Response(null, { status, headers })
}

/**
 * Fresh cache hits (and a client's 429 on them) answered before the Effect runtime: the same
 * bytes and headers as the pipeline's edge (Answers.ts), the same rate limit, the same log line,
 * at a fraction of the cost (test/bench/README.md). Only where it can be exact: without tracing
 * (a hit then gets its server span in the pipeline) and with buckets in memory (Redis needs I/O).
 * Everything else - misses, other methods, health and staff - goes on to the pipeline.
 */
export const makeFrontDoor: Effect.Effect<FrontDoor | undefined, never, AppConfig | RateLimiter | ResponseCache> = Effect.gen(
  function*() {
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    const cache = yield* ResponseCache
    const takeNow = limiter.takeNow
    if (!frontDoorAnswersHits(config, limiter, cache) || takeNow === undefined) return undefined
    const logged = !LogLevel.lessThan(LogLevel.Info, config.logLevel)
    const writeLine = makeInfoLineWriter(config.logFormat)
    const clientKeys = makeClientKeys(config.trustProxy)

    return (request, server) => {
      const method = request.method
      if (method !== "GET" && method !== "HEAD") return undefined
      const startedAt = performance.now()
      const key = pathAndQuery(request.url)
      const nowMs = Date.now()
      // Only public GET/HEAD responses are ever stored (Edge.ts), so a hit is a public read.
      const representation = cache.lookupAt(key, nowMs)
      if (representation === undefined) return undefined

      const headers = request.headers
      const socket = server.requestIP(request)?.address
      const decision = takeNow(clientKeys(socket, headers.get("x-forwarded-for") ?? undefined))
      const ids = unsampledTraceIds(callerTraceId(headers))
      let response: Response
      let bytes: number
      if (decision.allowed) {
        const hit = answerRepresentation(
          representation,
          { acceptEncoding: headers.get("accept-encoding") ?? undefined, ifNoneMatch: headers.get("if-none-match") ?? undefined },
          publicEdgeHeaders(decision),
          "hit"
        )
        if (hit.added > 0) cache.grew(key, representation, hit.added)
        cacheHits.unsafeUpdate(1, [])
        hit.headers["traceparent"] = traceparentOf(ids)
        if (hit.body !== undefined) hit.headers["content-type"] = hit.contentType
        bytes = hit.body === undefined ? 0 : hit.body.length
        response = respond(method, hit.status, hit.headers, hit.body, bytes)
      } else {
        const body = JSON.stringify(rateLimitedEnvelope(decision))
        const limited = publicEdgeHeaders(decision)
        limited["content-type"] = JSON_CONTENT_TYPE
        limited["cache-control"] = "no-store"
        limited["traceparent"] = traceparentOf(ids)
        bytes = Buffer.byteLength(body)
        response = respond(method, 429, limited, body, bytes)
      }
      if (logged) {
        const annotations = new Map<string, string>([["ratelimit.outcome", decision.allowed ? "allowed" : "limited"]])
        if (decision.allowed) annotations.set("cache", "hit")
        writeRequestLine(writeLine, {
          method,
          path: pathOf(key),
          status: response.status,
          durationMs: performance.now() - startedAt,
          bytes: method === "HEAD" ? 0 : bytes,
          traceId: ids.traceId,
          clientAddress: socket ?? "",
          annotations
        })
      }
      return response
    }
  }
)
