import * as Option from "effect/Option"
import type { AppConfig } from "../Config.js"
import type { RateLimitDecision, RateLimiter } from "../RateLimit/RateLimiter.js"
import { rateLimitHeaders } from "../RateLimit/RateLimiter.js"
import { corsHeaders } from "./Cors.js"
import { chooseCoding, type ContentCoding, encodeBody, etagOf, matchesIfNoneMatch, type Representation } from "./Representation.js"
import type { ResponseCache } from "./ResponseCache.js"

/**
 * The answers the edge gives without routing - a cache hit and a 429 - as plain status, headers
 * and body, so the Effect pipeline (Edge.ts) and the front door (FrontDoor.ts) send the same bytes.
 */

export const PUBLIC_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300"

/** CORS headers of every public response but a preflight: always the same (D3). */
export const PUBLIC_CORS = corsHeaders({ staff: false, origin: undefined, preflight: false, staffOrigins: [] })

/** Headers of a public 200 that go with its representation (D3). */
const publicHeaders = (
  headers: Record<string, string>,
  representation: Representation,
  coding: ContentCoding,
  xCache: "hit" | "miss" | undefined
) => {
  headers["cache-control"] = PUBLIC_CACHE_CONTROL
  headers["etag"] = etagOf(representation, coding)
  if (xCache !== undefined) headers["x-cache"] = xCache
  return headers
}

/** A public response's rate-limit and CORS headers (D3, D4). */
export const publicEdgeHeaders = (decision: RateLimitDecision | undefined): Record<string, string> =>
  decision === undefined ? { ...PUBLIC_CORS } : { ...rateLimitHeaders(decision), ...PUBLIC_CORS }

export interface CachedAnswer {
  readonly status: 200 | 304
  readonly headers: Record<string, string>
  /** undefined for 304 */
  readonly body: Uint8Array | undefined
  readonly contentType: string
  /** bytes of a compressed form made for this answer, to count in the cache */
  readonly added: number
}

/**
 * A public 200's bytes under the client's coding, or 304 when it has them (D3): for a cache
 * hit and for a freshly routed response alike.
 */
export const answerRepresentation = (
  representation: Representation,
  request: { readonly acceptEncoding: string | undefined; readonly ifNoneMatch: string | undefined },
  headers: Record<string, string>,
  xCache: "hit" | "miss" | undefined
): CachedAnswer => {
  const coding = chooseCoding(request.acceptEncoding, representation.body.length)
  const { added, body } = encodeBody(representation, coding)
  publicHeaders(headers, representation, coding, xCache)
  headers["vary"] = "Accept-Encoding"
  const contentType = representation.contentType
  if (matchesIfNoneMatch(request.ifNoneMatch, representation)) return { status: 304, headers, body: undefined, contentType, added }
  if (coding !== "identity") headers["content-encoding"] = coding
  return { status: 200, headers, body, contentType, added }
}

/** The envelope of a 429 (spec part 7, D4). */
export const rateLimitedEnvelope = (decision: RateLimitDecision) => {
  const seconds = Math.max(1, decision.secondsUntilToken)
  return {
    error: {
      code: "rate_limited",
      message: `Too many requests: ${decision.limit} per ${decision.windowSeconds} seconds per client; ` +
        `retry in ${seconds} second${seconds === 1 ? "" : "s"}.`
    }
  }
}

/**
 * Whether fresh hits are answered by the front door (FrontDoor.ts) rather than the pipeline:
 * without tracing (a hit then gets its server span), with buckets in memory, the cache on.
 */
export const frontDoorAnswersHits = (config: AppConfig["Type"], limiter: RateLimiter["Type"], cache: ResponseCache["Type"]) =>
  Option.isNone(config.otlpEndpoint) && limiter.takeNow !== undefined && cache.enabled
