import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TokenVerifier } from "../Auth/TokenVerifier.js"
import { type Freshness, PUBLIC_FRESHNESS } from "../Cache/Freshness.js"
import { makeRepresentation, matchIfNoneMatch, type Representation } from "../Cache/Representation.js"
import { ResponseCache } from "../Cache/ResponseCache.js"
import { AppConfig } from "../Config.js"
import type * as HttpBody from "effect/http/HttpBody"
import { JSON_CONTENT_TYPE, NEXT_CURSOR_HEADER } from "../Queries/Json.js"
import { pathAndQuery, pathOf } from "./Url.js"
import { add, cacheHit, cacheMiss } from "../Metrics.js"
import { makeClientKeys } from "../RateLimit/ClientAddress.js"
import { makeClientSlots } from "../RateLimit/ClientSlots.js"
import { type RateLimitDecision, RateLimiter } from "../RateLimit/RateLimiter.js"
import { InFlightRequests } from "../Shutdown.js"
import type { RequestTrace } from "../Telemetry/TraceContext.js"
import {
  ALLOWED_METHODS,
  type Answer,
  type AnswerContext,
  type AnswerSettings,
  errorAnswer,
  givenBack,
  keptHeaders,
  optionsAnswer,
  ownAnswer,
  publicAnswer,
  streamedAnswer,
  uncachedAnswer
} from "./Answer.js"
import {
  envelope,
  HEADERS_TOO_LARGE_MESSAGE,
  methodNotAllowedMessage,
  rateLimitedMessage,
  routeNotFoundMessage,
  tooManyInFlightMessage,
  UNREADABLE_PARAMETER,
  URL_TOO_LONG_MESSAGE
} from "./Errors.js"
import { matchRoute, meaningOf, parametersOf, type Route, type RouteKind } from "./Routes.js"

/** Longest path and query we read; longer targets get our 414 before anything else. */
export const MAX_TARGET_BYTES = 8192
/** Largest sum of header names and values we read; larger gets our 431 (Bun's own limit is set above it). */
export const MAX_HEADER_BYTES = 16384

/** What the edge knows of a request: taken once from the web Request, by either adapter. */
export interface RequestFacts {
  readonly source: Request
  readonly method: string
  /** path and query: the response cache's key */
  readonly target: string
  readonly path: string
  readonly clientKey: string
}

/** Where a request goes, decided once (docs/edge.md): its route and the rules of its kind. */
export interface Screened {
  readonly facts: RequestFacts
  /** undefined: no endpoint has this path (answered not_found after the rate limit) */
  readonly route: Route | undefined
  readonly kind: RouteKind
}

/** A request let through to its handler, with everything its answer will need. */
export interface Admitted {
  readonly facts: RequestFacts
  readonly route: Route
  readonly context: AnswerContext
  /** set for a public GET/HEAD while the response cache is on: the request's meaning (Routes.meaningOf) */
  readonly cacheKey: string | undefined
}

export type Verdict = { readonly answer: Answer } | { readonly admitted: Admitted }

/** What the front door passes on to the pipeline for a request it did not answer: nothing is decided twice. */
export type HandedOn =
  | { readonly trace: RequestTrace; readonly admitted: Admitted }
  | { readonly trace: RequestTrace; readonly screened: Screened }

const headerBytes = (headers: Headers) => {
  let bytes = 0
  headers.forEach((value, name) => {
    bytes += name.length + value.length + 4
  })
  return bytes
}

const readableParameter = (raw: string) => {
  if (!raw.includes("%")) return true
  try {
    return !decodeURIComponent(raw).includes("\u0000")
  } catch {
    return false
  }
}

/**
 * The edge: everything decided about a request before and after its handler, as plain
 * functions both adapters call (src/Http/FrontDoor.ts before the Effect runtime, src/Http/Pipeline.ts
 * inside it). In order: our own size limits, the route (exact spelling), the rate limit, wrong
 * methods, unreadable parameters, the response cache; after the handler, the answer's headers.
 */
const makeEdge = Effect.gen(function*() {
  const config = yield* AppConfig
  const limiter = yield* RateLimiter
  const cache = yield* ResponseCache
  const verifier = yield* TokenVerifier
  const inFlight = yield* InFlightRequests
  const clientKeys = makeClientKeys(config.trustProxy)
  const { maxInFlight, maxQueued } = config.rateLimit
  const slots = makeClientSlots(maxInFlight, maxQueued)
  const settings: AnswerSettings = { staffOrigins: config.corsStaffOrigins, draining: () => inFlight.draining }

  const factsOf = (source: Request, socketAddress: string | undefined): RequestFacts => {
    const target = pathAndQuery(source.url)
    return {
      source,
      method: source.method,
      target,
      path: pathOf(target),
      clientKey: clientKeys(socketAddress, source.headers.get("x-forwarded-for") ?? undefined)
    }
  }

  const contextOf = (
    facts: RequestFacts,
    kind: RouteKind,
    decision: RateLimitDecision | undefined,
    traceparent: string,
    freshness: Freshness = PUBLIC_FRESHNESS
  ): AnswerContext => ({
    kind,
    freshness,
    method: facts.method,
    origin: facts.source.headers.get("origin") ?? undefined,
    // read only where a 401 can come from
    bearerSent: kind === "staff" && /^Bearer +\S+/i.test(facts.source.headers.get("authorization") ?? ""),
    decision,
    traceparent
  })

  /** Our size limits, then the route: the request's kind never depends on anything but the route it matched. */
  const screen = (facts: RequestFacts, traceparent: string): Screened | { readonly answer: Answer } => {
    const tooLong = facts.target.length > MAX_TARGET_BYTES
    if (tooLong || headerBytes(facts.source.headers) > MAX_HEADER_BYTES) {
      const context = contextOf(facts, "public", undefined, traceparent)
      return tooLong
        ? { answer: errorAnswer(settings, context, 414, envelope("bad_request", URL_TOO_LONG_MESSAGE)) }
        : { answer: errorAnswer(settings, context, 431, envelope("bad_request", HEADERS_TOO_LARGE_MESSAGE)) }
    }
    const route = matchRoute(facts.path)
    return { facts, route, kind: route?.kind ?? "public" }
  }

  /** The token this request pays: none for health checks and valid staff tokens (a bad token pays: no free brute force). */
  const limit = (screened: Screened): Effect.Effect<RateLimitDecision | undefined> => {
    if (screened.kind === "health") return Effect.succeed(undefined)
    const take = limiter.take(screened.facts.clientKey)
    if (screened.kind !== "staff") return take
    const authorization = screened.facts.source.headers.get("authorization") ?? undefined
    return Effect.matchEffect(verifier.verifyRequest(screened.facts.source, authorization), {
      onSuccess: () => Effect.succeed(undefined),
      onFailure: () => take
    })
  }

  /**
   * A 304 the response cache answered cost nothing, so its token goes back and the headers say so.
   * Only that one: a 304 made after the handler ran cost what a 200 costs, and `If-None-Match: *`
   * (true of any representation) is never free.
   */
  const giveBack = (facts: RequestFacts, context: AnswerContext): AnswerContext => {
    if (context.decision === undefined || !context.decision.allowed) return context
    limiter.giveBack(facts.clientKey)
    return { ...context, decision: givenBack(context.decision) }
  }

  /** How the request's If-None-Match meets these bytes, read once per answer. */
  const conditionOf = (facts: RequestFacts, representation: Representation) =>
    matchIfNoneMatch(facts.source.headers.get("if-none-match") ?? undefined, representation)

  /** A public 200 for these bytes, or its 304 when the condition matched. */
  const answerRepresentation = (
    facts: RequestFacts,
    context: AnswerContext,
    representation: Representation,
    condition: "tag" | "any" | undefined,
    xCache: "hit" | "miss" | undefined
  ) =>
    publicAnswer(
      settings,
      context,
      representation,
      {
        acceptEncoding: facts.source.headers.get("accept-encoding") ?? undefined,
        notModified: condition !== undefined,
        target: facts.target
      },
      xCache
    )

  /** A cache hit: its 304 for a validator the client named is free; anything else pays as it came. */
  const answerFromCache = (
    facts: RequestFacts,
    context: AnswerContext,
    key: string,
    representation: Representation,
    condition: "tag" | "any" | undefined
  ): Answer => {
    const paid = condition === "tag" ? giveBack(facts, context) : context
    const hit = answerRepresentation(facts, paid, representation, condition, "hit")
    add(cacheHit)
    if (hit.added > 0) cache.grew(key, representation, hit.added)
    return hit
  }

  /** Everything that can be answered before the handler runs; otherwise the request is admitted. */
  const decide = (screened: Screened, decision: RateLimitDecision | undefined, traceparent: string): Verdict => {
    const { facts, kind, route } = screened
    const context = contextOf(facts, kind, decision, traceparent, route?.freshness)
    const read = facts.method === "GET" || facts.method === "HEAD"
    const cacheKey = kind === "public" && read && route !== undefined && cache.enabled ? meaningOf(route, facts.path, facts.target) : undefined
    const cached = cacheKey === undefined ? undefined : cache.lookupAt(cacheKey, Date.now())
    const condition = cached === undefined ? undefined : conditionOf(facts, cached)
    if (decision !== undefined && !decision.allowed) {
      // past its limit, a client still gets the free 304s: those the cache gives for a validator it names
      if (cached !== undefined && condition === "tag") return { answer: answerFromCache(facts, context, cacheKey!, cached, condition) }
      return {
        answer: errorAnswer(settings, context, 429, envelope("rate_limited", rateLimitedMessage(decision)))
      }
    }
    if (route === undefined) return { answer: errorAnswer(settings, context, 404, envelope("not_found", routeNotFoundMessage(facts.path))) }
    if (facts.method === "OPTIONS") return { answer: optionsAnswer(settings, context) }
    if (!read) {
      return {
        answer: errorAnswer(settings, context, 405, envelope("bad_request", methodNotAllowedMessage(facts.method, route.template)), {
          allow: ALLOWED_METHODS
        })
      }
    }
    for (const [name, raw] of parametersOf(route, facts.path)) {
      if (!readableParameter(raw)) return { answer: errorAnswer(settings, context, 400, envelope("bad_request", UNREADABLE_PARAMETER(name))) }
    }
    if (cached !== undefined) return { answer: answerFromCache(facts, context, cacheKey!, cached, condition) }
    return { admitted: { facts, route, context, cacheKey } }
  }

  /**
   * The handler's run in one of its client's slots: what one client has running or waiting is
   * bounded (docs/edge.md, "Requests in flight"). Only requests the rate limit counts; past the
   * queue, a 429 (its token stays spent: it was counted).
   */
  const inSlot = <R>(admitted: Admitted, handle: Effect.Effect<Answer, never, R>): Effect.Effect<Answer, never, R> => {
    const { context, facts } = admitted
    if (context.decision === undefined) return handle
    const refused = Effect.sync(() =>
      errorAnswer(settings, context, 429, envelope("rate_limited", tooManyInFlightMessage(maxInFlight, maxQueued)), { "retry-after": "1" })
    )
    return slots.withSlot(facts.clientKey, handle, refused)
  }

  /**
   * The answer for the bytes the handler (or the router's error encoder) made, with the router
   * response's kept headers (Answer.keptHeaders); a public 200 is stored unless it has some (the
   * cache keeps bytes). A list page's next cursor (src/Queries/Json.ts pageJson) is answered as a Link.
   */
  const finish = (
    admitted: Admitted,
    status: number,
    body: Uint8Array,
    bodyType: string,
    routed: Readonly<Record<string, string>>
  ): Answer => {
    const { context, facts } = admitted
    const nextCursor = routed[NEXT_CURSOR_HEADER]
    const kept = keptHeaders(routed)
    // the router's encoder says plain application/json: every JSON answer names its charset
    const contentType = bodyType === "application/json" ? JSON_CONTENT_TYPE : bodyType
    let answer: Answer
    if (status !== 200 || context.kind !== "public") {
      const next = nextCursor === undefined ? undefined : { target: facts.target, cursor: nextCursor }
      answer = uncachedAnswer(settings, context, status, body, contentType, facts.source.headers.get("accept-encoding") ?? undefined, next)
    } else {
      const representation = makeRepresentation(body, contentType, nextCursor)
      const cacheKey = kept === undefined ? admitted.cacheKey : undefined
      answer = answerRepresentation(facts, context, representation, conditionOf(facts, representation), cacheKey === undefined ? undefined : "miss")
      if (cacheKey !== undefined) {
        add(cacheMiss)
        cache.storeAt(cacheKey, representation, Date.now(), admitted.route.freshness)
      }
    }
    if (kept !== undefined) Object.assign(answer.headers, kept)
    return answer
  }

  /** A handler's streamed body, passed on as it comes (src/Http/Answer.ts, streamedAnswer). */
  const stream = (admitted: Admitted, status: number, body: HttpBody.Stream, routed: Readonly<Record<string, string>>): Answer =>
    streamedAnswer(settings, admitted.context, status, body, keptHeaders(routed))

  /** What a handler made whole (src/Http/Answer.ts, ownAnswer): its status, headers and body, a file streamed. */
  const passOn = (admitted: Admitted, status: number, own: Readonly<Record<string, string>>, body: Uint8Array | Blob | undefined): Answer =>
    ownAnswer(settings, admitted.context, status, own, body)

  /** A failure outside the router (it should not happen): the envelope all the same. */
  const failed = (admitted: Admitted, status: 500 | 503, message: string): Answer =>
    errorAnswer(settings, admitted.context, status, envelope("internal_error", message))

  const handedOn = new WeakMap<Request, HandedOn>()
  const handOn = (source: Request, what: HandedOn) => void handedOn.set(source, what)
  const takeHandedOn = (source: Request) => {
    const what = handedOn.get(source)
    if (what !== undefined) handedOn.delete(source)
    return what
  }

  return {
    factsOf,
    screen,
    limit,
    decide,
    inSlot,
    finish,
    stream,
    passOn,
    failed,
    handOn,
    takeHandedOn,
    takeNow: limiter.takeNow,
    cacheOn: cache.enabled
  }
})

/** One edge per process, shared by the front door and the pipeline. */
export class Edge extends Context.Service<Edge, Effect.Success<typeof makeEdge>>()("catalogue/Edge") {
  static readonly layer = Layer.effect(Edge, makeEdge)
}
