import type * as HttpApiError from "effect/http-api/HttpApiError"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as SqlError from "effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SchemaIssue from "effect/SchemaIssue"
import { DatabaseErrors } from "../Api.js"
import { UNAVAILABLE_REASONS } from "../Database/Faults.js"
import { BadRequest, DecodeErrors, echo, EnvelopeErrors, type ErrorCode, InternalError, Unavailable } from "../Contract/Errors.js"
import type { RateLimitDecision } from "../RateLimit/RateLimiter.js"
import { requestLogIds } from "../RequestTrace.js"
import { add, databaseUnavailable } from "../Metrics.js"

/**
 * Every error body the service sends, and how each failure becomes one (docs/edge.md). Messages
 * are short sentences for a developer; they quote at most a short prefix of what was sent.
 */

/** The error envelope (docs/api.md, Errors): `{"error":{"code","message"}}` and nothing else. */
export const envelope = (code: ErrorCode, message: string) => JSON.stringify({ error: { code, message } })

/** A message with every long quoted value cut to its prefix, and the whole kept short. */
const clipQuotes = (message: string) =>
  echo(message.replace(/"((?:[^"\\]|\\.){40})(?:[^"\\]|\\.)+"/g, (_, prefix: string) => `"${prefix}…"`), 240)

export const routeNotFoundMessage = (path: string) =>
  path.length > 1 && path.endsWith("/")
    ? `No endpoint at ${echo(path, 80)}; paths have no trailing slash.`
    : `No endpoint at ${echo(path, 80)}.`

export const methodNotAllowedMessage = (method: string, template: string) =>
  `Method ${echo(method, 16)} is not allowed on ${template}; use GET or HEAD.`

export const URL_TOO_LONG_MESSAGE = "The request target is too long: at most 8,192 bytes of path and query."
export const HEADERS_TOO_LARGE_MESSAGE = "The request's header fields are too large: at most 16,384 bytes in all."
export const UNREADABLE_PARAMETER = (name: string) => `${name} is not valid percent-encoded UTF-8 text.`

/** The message of a 429. */
export const rateLimitedMessage = (decision: RateLimitDecision) => {
  const seconds = Math.max(1, decision.secondsUntilToken)
  return `Too many requests: ${decision.limit} per ${decision.windowSeconds} seconds per client; ` +
    `retry in ${seconds} second${seconds === 1 ? "" : "s"}.`
}

/** A request over its client's bound on requests in flight and waiting (docs/edge.md, "Requests in flight"). */
export const tooManyInFlightMessage = (maxInFlight: number, maxQueued: number) =>
  `Too many requests at once: ${maxInFlight} running and ${maxQueued} waiting per client; retry in 1 second.`

/** Effect's words, but "is missing" for a parameter that is absent. */
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => (issue._tag === "MissingKey" ? "is missing" : SchemaIssue.defaultLeafHook(issue))
})

/** A query parameter given more than once (`limit=1&limit=2`): Effect sees a list where text goes. */
const givenTwice = (url: string, name: string) => {
  const query = url.indexOf("?")
  return query >= 0 && new URLSearchParams(url.slice(query + 1)).getAll(name).length > 1
}

const segmentName = (segment: unknown) =>
  String(typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment)

const issueText = (url: string, issue: { readonly path?: ReadonlyArray<unknown> | undefined; readonly message: string }) => {
  const name = (issue.path ?? []).map(segmentName).join(".")
  if (name !== "" && givenTwice(url, name)) return `${name} must be given once.`
  if (name === "" || issue.message.startsWith(name)) return issue.message
  return `${name}: ${issue.message}`
}

/** Effect's own decode error, re-said in one sentence that names the parameter. */
const badRequestFrom = (url: string, error: HttpApiError.HttpApiSchemaError) => {
  const [first] = formatIssues(error.cause.issue).issues
  return new BadRequest({ message: clipQuotes(first === undefined ? "The request is not valid." : issueText(url, first)) })
}

/**
 * Through the framework's transform, a request it cannot decode is the client's: 400, no log line
 * above warn. A body that does not encode is ours: left to the envelope step, a 500.
 */
export const DecodeErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(DecodeErrors, (error) =>
  error.kind === "Body"
    ? Effect.fail(error)
    : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => Effect.fail(badRequestFrom(request.url, error))))

const ENVELOPE_TAGS = new Set(["NotFound", "BadRequest", "Unauthorized", "Forbidden", "RateLimited", "InternalError", "Unavailable"])

const isEnvelopeError = (error: unknown) =>
  typeof error === "object" && error !== null && "_tag" in error && ENVELOPE_TAGS.has(String(error._tag))

/** Nothing to do at run time: EnvelopeErrors, inside it, answers every SqlError (src/Api.ts). */
export const DatabaseErrorsLive = Layer.succeed(DatabaseErrors, (handler) => handler)

/** A database that is away: 503 with one line, no stack (the operator needs to know it is away, not where we noticed). */
const databaseAway = (_reason: unknown, error: SqlError.SqlError) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* Effect.logError("request failed").pipe(
      Effect.annotateLogs({ ...requestLogIds(request), reason: `database unavailable: ${error.message}` })
    )
    add(databaseUnavailable)
    return yield* new Unavailable({ message: "The database is not available; try again shortly." })
  })

const unavailableReasons = Object.fromEntries(UNAVAILABLE_REASONS.map((tag) => [tag, databaseAway])) as Record<
  typeof UNAVAILABLE_REASONS[number],
  typeof databaseAway
>

/**
 * Inside every endpoint: every failure becomes one of the declared envelope errors, which the
 * HttpApi encodes. Decode errors arrive as bad_request already (DecodeErrorsLive); a SqlError whose
 * reason says the database is away is 503 (the one Effect.catchReasons); anything else (another
 * SqlError, a defect) is a bug: 500, logged at ERROR with its cause for the operator.
 */
const toEnvelopeErrors = <A, E, R>(handler: Effect.Effect<A, E, R>) =>
  (handler as Effect.Effect<A, E | SqlError.SqlError, R>).pipe(
    Effect.catchReasons("SqlError", unavailableReasons),
    Effect.catchCause((cause) =>
      Effect.gen(function*() {
        const failure = Cause.findErrorOption(cause)
        // an envelope error, or an interruption: as it is (a SqlError has been answered or is a bug)
        const passed = cause as Cause.Cause<E | Unavailable>
        if (Option.isSome(failure) && isEnvelopeError(failure.value)) return yield* Effect.failCause(passed)
        if (Cause.hasInterruptsOnly(cause)) return yield* Effect.failCause(passed)
        const request = yield* HttpServerRequest.HttpServerRequest
        yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs(requestLogIds(request)))
        return yield* new InternalError({ message: "Something went wrong on our side; it has been logged." })
      }))
  )

export const EnvelopeErrorsLive = Layer.succeed(EnvelopeErrors, (handler) => toEnvelopeErrors(handler))
