import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TokenVerifier } from "../Auth/TokenVerifier.js"
import { AppConfig } from "../Config.js"
import { pathOf } from "../Domain/Url.js"
import { makeClientKeys } from "../RateLimit/ClientAddress.js"
import { type RateLimitDecision, RateLimiter, rateLimitHeaders } from "../RateLimit/RateLimiter.js"
import { answerRepresentation, type CachedAnswer, frontDoorAnswersHits, publicEdgeHeaders, rateLimitedEnvelope } from "./Answers.js"
import { corsHeaders } from "./Cors.js"
import {
  chooseCoding,
  COMPRESS_ABOVE_BYTES,
  encodeBody,
  makeRepresentation,
  type Representation
} from "./Representation.js"
import { cacheHits, cacheMisses, ResponseCache } from "./ResponseCache.js"
import { withSpan } from "../Spans.js"

/** Which rules a path falls under (D3, D4, D5). */
export type Area = "health" | "staff" | "public"

export const areaOf = (path: string): Area => {
  if (path === "/v1/health" || path === "/v1/health/ready") return "health"
  if (path === "/v1/admin" || path.startsWith("/v1/admin/")) return "staff"
  return "public"
}


/** What the pre-response step needs to know about one request. */
interface RequestState {
  readonly area: Area
  readonly decision: RateLimitDecision | undefined
  /** Set for public GET/HEAD while the cache is on. */
  readonly cacheKey: string | undefined
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
 * Decisions that must come before routing (429, a cache hit) are made here and answered at
 * once; everything that shapes a routed response happens in a pre-response handler, which
 * also sees error responses.
 */
export const makeEdge = Effect.gen(function*() {
  const limiter = yield* RateLimiter
  const cache = yield* ResponseCache
  const verifier = yield* TokenVerifier
  const config = yield* AppConfig

  const takeNow = limiter.takeNow
  const frontDoorOn = frontDoorAnswersHits(config, limiter, cache)
  const clientKeys = makeClientKeys(config.trustProxy)
  const clientKeyOf = (request: HttpServerRequest.HttpServerRequest) =>
    clientKeys(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"])

  /** Headers every response of this request gets: rate limit (D4) and CORS (D3). */
  const edgeHeaders = (request: HttpServerRequest.HttpServerRequest, state: RequestState): Record<string, string> => {
    const preflight = request.method === "OPTIONS"
    if (state.area !== "staff" && !preflight) return publicEdgeHeaders(state.decision)
    const cors = corsHeaders({
      staff: state.area === "staff",
      origin: request.headers["origin"],
      preflight,
      staffOrigins: config.corsStaffOrigins
    })
    return state.decision === undefined ? cors : { ...rateLimitHeaders(state.decision), ...cors }
  }

  /** Shapes every routed response: runs after the handler (or the error encoder) and the charset fix. */
  const finalize = (state: RequestState) =>
  (
    request: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    const headers = edgeHeaders(request, state)
    if (state.area === "staff") {
      response = appendVary(HttpServerResponse.setHeader(response, "cache-control", "no-store"), "Authorization")
      if (config.corsStaffOrigins.length > 0) response = appendVary(response, "Origin")
      if (response.status === 401) {
        const sent = /^Bearer +\S+/i.test(request.headers.authorization ?? "")
        headers["www-authenticate"] = sent ? `Bearer realm="staff", error="invalid_token"` : `Bearer realm="staff"`
      }
    }
    if (state.area === "health") headers["cache-control"] = "no-store"

    const isRead = request.method === "GET" || request.method === "HEAD"
    if (!isRead || response.status !== 200 || response.body._tag !== "Uint8Array") {
      return Effect.succeed(HttpServerResponse.setHeaders(response, headers))
    }
    const body = response.body.body
    const contentType = response.body.contentType
    const coding = chooseCoding(request.headers["accept-encoding"], body.length)

    if (state.area !== "public") {
      // Staff bodies are compressed but never cached or validated.
      response = HttpServerResponse.setHeaders(response, headers)
      if (body.length > COMPRESS_ABOVE_BYTES) response = appendVary(response, "Accept-Encoding")
      if (coding === "identity") return Effect.succeed(response)
      return Effect.succeed(codedResponse(response, makeRepresentation(body, contentType), coding))
    }

    const representation = makeRepresentation(body, contentType)
    const answered = toResponse(
      response,
      answerRepresentation(representation, validatorsOf(request), headers, state.cacheKey === undefined ? undefined : "miss")
    )
    if (state.cacheKey === undefined) return Effect.succeed(answered)
    cacheMisses.unsafeUpdate(1, [])
    return Effect.as(cache.store(state.cacheKey, representation), answered)
  }

  /** A cache hit, answered from the stored bytes: no routing, no hashing, no compression but the first. */
  const answerHit = (
    request: HttpServerRequest.HttpServerRequest,
    state: RequestState,
    cacheKey: string,
    representation: Representation
  ) => {
    const hit = answerRepresentation(representation, validatorsOf(request), edgeHeaders(request, state), "hit")
    cacheHits.unsafeUpdate(1, [])
    if (hit.added > 0) cache.grew(cacheKey, representation, hit.added)
    return Effect.succeed(toResponse(HttpServerResponse.empty({ status: 200 }), hit))
  }

  const proceed = <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
    request: HttpServerRequest.HttpServerRequest,
    area: Area,
    decision: RateLimitDecision | undefined
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
    const isRead = request.method === "GET" || request.method === "HEAD"
    const state: RequestState = {
      area,
      decision,
      cacheKey: area === "public" && isRead && cache.enabled ? request.url : undefined
    }
    if (decision !== undefined && !decision.allowed) {
      return Effect.succeed(
        HttpServerResponse.unsafeJson(rateLimitedEnvelope(decision), { status: 429, headers: edgeHeaders(request, state) })
      )
    }
    const routed = Effect.zipRight(HttpApp.appendPreResponseHandler(finalize(state)), app)
    const cacheKey = state.cacheKey
    // With the front door on, it has just looked this key up and missed.
    if (cacheKey === undefined || frontDoorOn) return routed
    return Effect.flatMap(
      cache.lookup(cacheKey).pipe(
        Effect.tap((hit) => Effect.annotateCurrentSpan("cache.hit", hit !== undefined)),
        withSpan("ResponseCache.lookup")
      ),
      (hit) => hit === undefined ? routed : answerHit(request, state, cacheKey, hit)
    )
  }

  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, E, R>((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const area = areaOf(pathOf(request.url))
      if (area === "health") return proceed(app, request, area, undefined)
      // Buckets in memory decide at once; Redis is a round trip.
      const limited = () =>
        takeNow === undefined
          ? Effect.flatMap(limiter.take(clientKeyOf(request)), (decision) => proceed(app, request, area, decision))
          : proceed(app, request, area, takeNow(clientKeyOf(request)))
      if (area !== "staff") return limited()
      // A valid staff token skips the limit; a bad one pays for every try (no free brute force).
      return Effect.flatMap(
        Effect.option(verifier.verify(request.headers.authorization)),
        (valid) => Option.isSome(valid) ? proceed(app, request, area, undefined) : limited()
      )
    })
})

const validatorsOf = (request: HttpServerRequest.HttpServerRequest) => ({
  acceptEncoding: request.headers["accept-encoding"],
  ifNoneMatch: request.headers["if-none-match"]
})

/** A public answer (Answers.ts) on top of the routed response, or of an empty one for a hit. */
const toResponse = (response: HttpServerResponse.HttpServerResponse, answer: CachedAnswer) => {
  const withHeaders = HttpServerResponse.setHeaders(response, answer.headers)
  return answer.body === undefined
    ? HttpServerResponse.setStatus(HttpServerResponse.setBody(withHeaders, HttpBody.empty), 304)
    : HttpServerResponse.setBody(withHeaders, HttpBody.uint8Array(answer.body, answer.contentType))
}

/** A staff body under the client's coding: compressed, never cached or validated. */
const codedResponse = (
  response: HttpServerResponse.HttpServerResponse,
  representation: Representation,
  coding: ReturnType<typeof chooseCoding>
) => {
  const { body } = encodeBody(representation, coding)
  const withBody = HttpServerResponse.setBody(response, HttpBody.uint8Array(body, representation.contentType))
  return coding === "identity" ? withBody : HttpServerResponse.setHeader(withBody, "content-encoding", coding)
}
