import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "../Api.js"
import { isDatabaseUnavailable } from "../Database.js"
import { BadRequest, echo, type ErrorCode, InternalError, NotFound, Unavailable } from "../Domain/Errors.js"
import { pathOf } from "../Domain/Url.js"
import type { RateLimitDecision } from "../RateLimit/RateLimiter.js"
import { traceIdOf } from "../RequestTrace.js"

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

const issueText = (issue: { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }) => {
  const name = issue.path.map(String).join(".")
  if (name !== "" && issue.message.startsWith("Expected string, actual [")) return `${name} must be given once.`
  if (name === "" || issue.message.startsWith(name)) return issue.message
  return `${name}: ${issue.message}`
}

/** Effect's own decode error, re-said in one sentence that names the parameter. */
const badRequestFrom = (error: HttpApiError.HttpApiDecodeError) =>
  new BadRequest({
    message: clipQuotes(error.issues.length > 0 ? issueText(error.issues[0]!) : "The request is not valid.")
  })

const ENVELOPE_TAGS = new Set(["NotFound", "BadRequest", "Unauthorized", "Forbidden", "RateLimited", "InternalError", "Unavailable"])

/**
 * Inside the router: every failure becomes one of the declared envelope errors, which the HttpApi
 * encodes. Decode errors are the client's (400, no log line above warn); a lost database is 503
 * with one line; anything else is a defect: 500, logged at ERROR with its cause for the operator.
 */
const toEnvelopeErrors = (app: HttpApp.Default) =>
  Effect.catchAllCause(app, (cause) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const error: unknown = failure.value
        if (error instanceof HttpApiError.HttpApiDecodeError) return yield* badRequestFrom(error)
        if (error instanceof HttpServerError.RouteNotFound) {
          return yield* new NotFound({ message: routeNotFoundMessage(pathOf(request.url)) })
        }
        if (typeof error === "object" && error !== null && "_tag" in error && ENVELOPE_TAGS.has(String(error._tag))) {
          return yield* Effect.failCause(cause)
        }
      }
      if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
      const squashed = Cause.squash(cause)
      const traceId = traceIdOf(request)
      if (squashed instanceof SqlError.SqlError && isDatabaseUnavailable(squashed)) {
        // one line, no stack: the operator needs to know the database is away, not where we noticed
        yield* Effect.logError("request failed").pipe(Effect.annotateLogs({ trace_id: traceId, reason: `database unavailable: ${squashed.message}` }))
        return yield* new Unavailable({ message: "The database is not available; try again shortly." })
      }
      yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs("trace_id", traceId))
      return yield* new InternalError({ message: "Something went wrong on our side; it has been logged." })
    }))

export const EnvelopeErrorsLive = HttpApiBuilder.middleware(Api, Effect.succeed(toEnvelopeErrors))
