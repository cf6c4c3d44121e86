import type * as HttpBody from "effect/http/HttpBody"
import { chooseCoding, COMPRESS_ABOVE_BYTES, encodeBody, etagOf, type Representation } from "../Cache/Representation.js"
import { JSON_CONTENT_TYPE } from "../Queries/Json.js"
import { type RateLimitDecision, rateLimitHeaders } from "../RateLimit/RateLimiter.js"
import type { Freshness } from "../Cache/Freshness.js"
import { nextPageLink } from "./NextLink.js"
import type { RouteKind } from "./Routes.js"

/**
 * Every response the service sends, as a plain value, and every rule for its headers: cache
 * control, Vary, validators, the Link to a next page, CORS, rate-limit fields, traceparent,
 * content type, connection.
 * The front door and the routed pipeline both send what these functions make, and nothing else
 * writes a header (docs/edge.md).
 */
export interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  /**
   * undefined: no body (204, 304); a Blob: a file, streamed from disk as it is sent; an
   * HttpBody.Stream: a handler's stream, sent as it comes
   */
  readonly body: Uint8Array | string | Blob | HttpBody.Stream | undefined
}

/** What the headers of one request's answer depend on, decided once at the edge. */
export interface AnswerContext {
  /** the matched route's kind; an unknown path answers under the public rules */
  readonly kind: RouteKind
  /** the matched route's (src/Cache/Freshness.ts): its Cache-Control */
  readonly freshness: Freshness
  readonly method: string
  readonly origin: string | undefined
  /** whether an Authorization header with a bearer credential was sent (for WWW-Authenticate) */
  readonly bearerSent: boolean
  /** the rate-limit decision; undefined where no limit applies (health, valid staff tokens) */
  readonly decision: RateLimitDecision | undefined
  readonly traceparent: string
}

/** What the answers depend on beyond the request: fixed at start, but for `draining`. */
export interface AnswerSettings {
  readonly staffOrigins: ReadonlyArray<string>
  /** From SIGTERM on: every answer asks the client to close its connection. */
  readonly draining: () => boolean
}

export const ALLOWED_METHODS = "GET, HEAD, OPTIONS"

/** Response headers a browser may read across origins. */
const EXPOSED_HEADERS = [
  "ETag",
  "Link",
  "RateLimit",
  "RateLimit-Policy",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "X-Cache",
  "traceparent"
].join(", ")

const PREFLIGHT_MAX_AGE_SECONDS = "86400"

/**
 * Retry-After of every 503 (the database away, not serving yet, shutting down): about as long as a
 * balancer takes to put a replica whose database is back into rotation (docs/deploy.md, "Health").
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = "5"

/**
 * CORS: public data is readable from any origin (GET/HEAD, no credentials); staff routes answer
 * CORS only to origins in CORS_STAFF_ORIGINS, and none otherwise.
 */
const setCors = (headers: Record<string, string>, settings: AnswerSettings, context: AnswerContext) => {
  const staff = context.kind === "staff"
  if (staff) {
    if (context.origin === undefined || !settings.staffOrigins.includes(context.origin)) return
    headers["access-control-allow-origin"] = context.origin
  } else {
    headers["access-control-allow-origin"] = "*"
  }
  headers["access-control-expose-headers"] = EXPOSED_HEADERS
  if (context.method === "OPTIONS") {
    headers["access-control-allow-methods"] = ALLOWED_METHODS
    headers["access-control-allow-headers"] = staff
      ? "Authorization, If-None-Match, traceparent"
      : "If-None-Match, Cache-Control, traceparent"
    headers["access-control-max-age"] = PREFLIGHT_MAX_AGE_SECONDS
  }
}

/**
 * The headers every answer of this request carries, whatever its status. Only a public 200 or
 * 304 may be stored by anyone; a staff answer varies by Authorization, so no shared cache ever
 * hands one to another caller, whatever spelling reached it.
 */
const baseHeaders = (settings: AnswerSettings, context: AnswerContext, status: number): Record<string, string> => {
  const headers: Record<string, string> = context.decision === undefined ? {} : rateLimitHeaders(context.decision)
  setCors(headers, settings, context)
  const storable = context.kind === "public" && (status === 200 || status === 304)
  headers["cache-control"] = storable ? context.freshness.cacheControl : "no-store"
  if (context.kind === "staff") {
    headers["vary"] = settings.staffOrigins.length > 0 ? "Authorization, Origin" : "Authorization"
    if (status === 401) {
      headers["www-authenticate"] = context.bearerSent ? `Bearer realm="staff", error="invalid_token"` : `Bearer realm="staff"`
    }
  } else if (storable) {
    headers["vary"] = "Accept-Encoding"
  }
  headers["traceparent"] = context.traceparent
  if (status === 503) headers["retry-after"] = UNAVAILABLE_RETRY_AFTER_SECONDS
  if (settings.draining()) headers["connection"] = "close"
  return headers
}

/** The envelope of every failure: `{"error":{"code","message"}}`. */
export const errorAnswer = (
  settings: AnswerSettings,
  context: AnswerContext,
  status: number,
  envelope: string,
  extra?: Readonly<Record<string, string>>
): Answer => {
  const headers = baseHeaders(settings, context, status)
  headers["content-type"] = JSON_CONTENT_TYPE
  return { status, headers: extra === undefined ? headers : Object.assign(headers, extra), body: envelope }
}

/** An answer where no request context exists yet (not serving, or Bun's hook for a throw): the envelope all the same. */
export const bareErrorAnswer = (status: number, envelope: string): Answer => ({
  status,
  headers: {
    "content-type": JSON_CONTENT_TYPE,
    "cache-control": "no-store",
    ...(status === 503 ? { "retry-after": UNAVAILABLE_RETRY_AFTER_SECONDS } : {})
  },
  body: envelope
})

/**
 * The answer as a web Response; HEAD says the length GET would send, as the pipeline's responses do.
 * Only for answers made before a handler ran (the front door, not serving): no stream among them.
 */
export const toWebResponse = (method: string, answer: Answer): Response => {
  if (method !== "HEAD" || answer.body === undefined) return new Response((answer.body ?? null) as Uint8Array | string | Blob | null, answer)
  const length = bodyBytes(answer.body)
  return new Response(null, { status: answer.status, headers: { ...answer.headers, "content-length": String(length) } })
}

/** Bytes of a body as sent (a stream of unknown length: 0). */
export const bodyBytes = (body: NonNullable<Answer["body"]>) =>
  typeof body === "string"
    ? Buffer.byteLength(body)
    : body instanceof Uint8Array
    ? body.byteLength
    : body instanceof Blob
    ? body.size
    : body.contentLength ?? 0

/**
 * The router response's own headers an answer keeps: what describes the body or the resource
 * and no rule here decides. Every other header of the router's is dropped: the rules above
 * decide caching, CORS, validators and the rest.
 */
const KEPT_HEADERS = ["content-disposition", "content-language", "content-location", "last-modified", "location"] as const

/** The kept headers among a router response's; undefined when it has none (the usual case, nothing made). */
export const keptHeaders = (routed: Readonly<Record<string, string>>): Record<string, string> | undefined => {
  let kept: Record<string, string> | undefined
  for (const name of KEPT_HEADERS) {
    const value = routed[name]
    if (value !== undefined) (kept ??= {})[name] = value
  }
  return kept
}

/**
 * A handler's streamed body: passed on as it comes, with its own content type (and length when it
 * says one), never compressed, hashed nor stored; the headers of its kind and status as any answer.
 */
export const streamedAnswer = (
  settings: AnswerSettings,
  context: AnswerContext,
  status: number,
  body: HttpBody.Stream,
  kept: Readonly<Record<string, string>> | undefined
): Answer => {
  const headers = baseHeaders(settings, context, status)
  // never compressed here: nothing varies by Accept-Encoding
  if (context.kind !== "staff") delete headers["vary"]
  headers["content-type"] = body.contentType === "application/json" ? JSON_CONTENT_TYPE : body.contentType
  if (body.contentLength !== undefined) headers["content-length"] = String(body.contentLength)
  return { status, headers: kept === undefined ? headers : Object.assign(headers, kept), body }
}

/**
 * An answer its handler made whole, with its own validator and ranges (a snapshot file): passed on
 * with its status, headers and body as they are, a file streamed, never compressed nor stored in
 * the process. A 206 may be stored by others as its 200 may (the route's Cache-Control).
 */
export const ownAnswer = (
  settings: AnswerSettings,
  context: AnswerContext,
  status: number,
  own: Readonly<Record<string, string>>,
  body: Uint8Array | Blob | undefined
): Answer => {
  const headers = baseHeaders(settings, context, status)
  if (status === 206 && context.kind === "public") headers["cache-control"] = context.freshness.cacheControl
  // never compressed here: nothing varies by Accept-Encoding
  delete headers["vary"]
  return { status, headers: Object.assign(headers, own), body }
}

/** An OPTIONS request on a known path: 204 with `Allow` and, where allowed, the preflight's CORS fields. */
export const optionsAnswer = (settings: AnswerSettings, context: AnswerContext): Answer => {
  const headers = baseHeaders(settings, context, 204)
  headers["allow"] = ALLOWED_METHODS
  return { status: 204, headers, body: undefined }
}

/** A public answer: the client's coding of the bytes, or 304 when it has them already. */
export interface PublicAnswer extends Answer {
  /** bytes of a compressed form first made for this answer, to count in the cache */
  readonly added: number
}

/**
 * A public 200 (or its 304) from a representation, fresh or cached: `x-cache` says which. A 304
 * names the validator the 200 would carry and does no body work: nothing is compressed for it.
 */
export const publicAnswer = (
  settings: AnswerSettings,
  context: AnswerContext,
  representation: Representation,
  /**
   * `notModified`: the request's If-None-Match matched (the edge reads it once: Representation.matchIfNoneMatch);
   * `target`: its path and query, which the Link to a next page repeats
   */
  request: { readonly acceptEncoding: string | undefined; readonly notModified: boolean; readonly target: string },
  xCache: "hit" | "miss" | undefined
): PublicAnswer => {
  const { notModified } = request
  const coding = chooseCoding(request.acceptEncoding, representation.body.length)
  const headers = baseHeaders(settings, context, notModified ? 304 : 200)
  headers["etag"] = etagOf(representation, coding)
  if (representation.nextCursor !== undefined) headers["link"] = nextPageLink(request.target, representation.nextCursor)
  if (xCache !== undefined) headers["x-cache"] = xCache
  if (notModified) return { status: 304, headers, body: undefined, added: 0 }
  const { added, body } = encodeBody(representation, coding)
  headers["content-type"] = representation.contentType
  if (coding !== "identity") headers["content-encoding"] = coding
  return { status: 200, headers, body, added }
}

/**
 * Any other routed answer (a staff or health 200, an error the router's encoder made): sent as
 * it is, compressed when it is a 200 and the client asks, never validated or stored.
 */
export const uncachedAnswer = (
  settings: AnswerSettings,
  context: AnswerContext,
  status: number,
  body: Uint8Array,
  contentType: string,
  acceptEncoding: string | undefined,
  /** a staff list page's next page, as its Link: the request's path and query and the next cursor */
  next?: { readonly target: string; readonly cursor: string }
): Answer => {
  const headers = baseHeaders(settings, context, status)
  headers["content-type"] = contentType
  if (status === 200 && next !== undefined) headers["link"] = nextPageLink(next.target, next.cursor)
  const compressible = status === 200 && body.length > COMPRESS_ABOVE_BYTES
  if (compressible) headers["vary"] = headers["vary"] === undefined ? "Accept-Encoding" : `${headers["vary"]}, Accept-Encoding`
  const coding = compressible ? chooseCoding(acceptEncoding, body.length) : "identity"
  if (coding === "identity") return { status, headers, body }
  headers["content-encoding"] = coding
  return { status, headers, body: encodeBody({ contentType, body, hash: "", coded: {} }, coding).body }
}

/** The rate-limit fields as they stand once a request's token is given back (a 304 the cache answered is free). */
export const givenBack = (decision: RateLimitDecision): RateLimitDecision =>
  decision.allowed ? { ...decision, remaining: Math.min(decision.limit, decision.remaining + 1) } : decision
