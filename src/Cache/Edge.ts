import { HttpApp, HttpBody, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Metric, Option } from "effect"
import { TokenVerifier } from "../Auth/TokenVerifier.js"
import { AppConfig } from "../Config.js"
import { clientKey } from "../RateLimit/ClientAddress.js"
import { type RateLimitDecision, RateLimiter, rateLimitHeaders } from "../RateLimit/RateLimiter.js"
import { corsHeaders } from "./Cors.js"
import {
  chooseCoding,
  COMPRESS_ABOVE_BYTES,
  encodeBody,
  etagOf,
  makeRepresentation,
  matchesIfNoneMatch,
  type Representation
} from "./Representation.js"
import { cacheHits, cacheMisses, ResponseCache } from "./ResponseCache.js"

export const PUBLIC_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300"

/** Which rules a path falls under (D3, D4, D5). */
export type Area = "health" | "staff" | "public"

export const areaOf = (path: string): Area => {
  if (path === "/v1/health" || path === "/v1/health/ready") return "health"
  if (path === "/v1/admin" || path.startsWith("/v1/admin/")) return "staff"
  return "public"
}

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** What the pre-response step needs to know about one request. */
interface RequestState {
  readonly area: Area
  readonly decision: RateLimitDecision | undefined
  /** Set for public GET/HEAD while the cache is on. */
  readonly cacheKey: string | undefined
  hit: Representation | undefined
}

const appendVary = (response: HttpServerResponse.HttpServerResponse, field: string) => {
  const current = response.headers["vary"]
  if (current === undefined || current === "") return HttpServerResponse.setHeader(response, "vary", field)
  if (current.toLowerCase().split(/\s*,\s*/).includes(field.toLowerCase())) return response
  return HttpServerResponse.setHeader(response, "vary", `${current}, ${field}`)
}

/**
 * The edge of the service, around the router: the rate limit (D4), the response cache,
 * validators, compression and cache headers (D3), CORS (D3), and staff-response headers (D5).
 * Decisions that must come before routing (429, a cache hit) are made here; everything that
 * shapes the final response happens in a pre-response handler, which also sees error responses.
 */
export const makeEdge = Effect.gen(function*() {
  const limiter = yield* RateLimiter
  const cache = yield* ResponseCache
  const verifier = yield* TokenVerifier
  const config = yield* AppConfig

  /** Shapes every response: runs after the handler (or the error encoder) and the charset fix. */
  const finalize = (state: RequestState) =>
  (
    request: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
    Effect.gen(function*() {
      if (state.decision !== undefined) response = HttpServerResponse.setHeaders(response, rateLimitHeaders(state.decision))
      response = HttpServerResponse.setHeaders(
        response,
        corsHeaders({
          staff: state.area === "staff",
          origin: request.headers["origin"],
          preflight: request.method === "OPTIONS",
          staffOrigins: config.corsStaffOrigins
        })
      )
      if (state.area === "staff") {
        response = appendVary(HttpServerResponse.setHeader(response, "cache-control", "no-store"), "Authorization")
        if (config.corsStaffOrigins.length > 0) response = appendVary(response, "Origin")
        if (response.status === 401) {
          const sent = /^Bearer +\S+/i.test(request.headers.authorization ?? "")
          response = HttpServerResponse.setHeader(
            response,
            "www-authenticate",
            sent ? `Bearer realm="staff", error="invalid_token"` : `Bearer realm="staff"`
          )
        }
      }
      if (state.area === "health") response = HttpServerResponse.setHeader(response, "cache-control", "no-store")

      const isRead = request.method === "GET" || request.method === "HEAD"
      if (!isRead || response.status !== 200) return response
      if (response.body._tag !== "Uint8Array" && state.hit === undefined) return response
      const contentType = response.body._tag === "Uint8Array"
        ? response.body.contentType
        : state.hit?.contentType ?? "application/octet-stream"
      const coding = chooseCoding(request.headers["accept-encoding"], (state.hit?.body ?? bodyBytes(response)).length)

      if (state.area !== "public") {
        // Staff bodies are compressed but never cached or validated.
        if (response.body._tag !== "Uint8Array") return response
        if (response.body.body.length > COMPRESS_ABOVE_BYTES) response = appendVary(response, "Accept-Encoding")
        if (coding === "identity" || response.body._tag !== "Uint8Array") return response
        const once = makeRepresentation(response.body.body, contentType)
        return codedResponse(response, once, coding)
      }

      let representation = state.hit
      if (representation === undefined) {
        representation = makeRepresentation(bodyBytes(response), contentType)
        if (state.cacheKey !== undefined) {
          yield* cache.store(state.cacheKey, representation)
          yield* Metric.increment(cacheMisses)
        }
      } else {
        yield* Metric.increment(cacheHits)
      }
      const { added } = encodeBody(representation, coding)
      if (state.hit !== undefined && state.cacheKey !== undefined) yield* cache.grew(state.cacheKey, representation, added)

      response = HttpServerResponse.setHeaders(response, {
        "cache-control": PUBLIC_CACHE_CONTROL,
        etag: etagOf(representation, coding)
      })
      response = appendVary(response, "Accept-Encoding")
      if (state.cacheKey !== undefined) {
        response = HttpServerResponse.setHeader(response, "x-cache", state.hit === undefined ? "miss" : "hit")
      }
      if (matchesIfNoneMatch(request.headers["if-none-match"], representation)) {
        return HttpServerResponse.setStatus(HttpServerResponse.setBody(response, HttpBody.empty), 304)
      }
      return codedResponse(response, representation, coding)
    })

  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const area = areaOf(pathOf(request.url))
      let decision: RateLimitDecision | undefined
      if (area !== "health") {
        // A valid staff token skips the limit; a bad one pays for every try (no free brute force).
        const validStaff = area === "staff" &&
          Option.isSome(yield* Effect.option(verifier.verify(request.headers.authorization)))
        if (!validStaff) {
          const key = clientKey(
            Option.getOrUndefined(request.remoteAddress),
            request.headers["x-forwarded-for"],
            config.trustProxy
          )
          decision = yield* limiter.take(key)
        }
      }
      const isRead = request.method === "GET" || request.method === "HEAD"
      const state: RequestState = {
        area,
        decision,
        cacheKey: area === "public" && isRead && cache.enabled ? request.url : undefined,
        hit: undefined
      }
      yield* HttpApp.appendPreResponseHandler(finalize(state))

      if (decision !== undefined && !decision.allowed) {
        const seconds = Math.max(1, decision.secondsUntilToken)
        return HttpServerResponse.unsafeJson(
          {
            error: {
              code: "rate_limited",
              message: `Too many requests: ${decision.limit} per ${decision.windowSeconds} seconds per client; ` +
                `retry in ${seconds} second${seconds === 1 ? "" : "s"}.`
            }
          },
          { status: 429 }
        )
      }
      if (state.cacheKey !== undefined) {
        state.hit = yield* cache.lookup(state.cacheKey)
        if (state.hit !== undefined) {
          return HttpServerResponse.uint8Array(state.hit.body, { contentType: state.hit.contentType })
        }
      }
      return yield* app
    })
})

const bodyBytes = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array()

const codedResponse = (
  response: HttpServerResponse.HttpServerResponse,
  representation: Representation,
  coding: ReturnType<typeof chooseCoding>
) => {
  const { body } = encodeBody(representation, coding)
  const withBody = HttpServerResponse.setBody(response, HttpBody.uint8Array(body, representation.contentType))
  return coding === "identity" ? withBody : HttpServerResponse.setHeader(withBody, "content-encoding", coding)
}
