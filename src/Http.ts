import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { makeEdge } from "./Cache/Edge.js"
import { BadRequest, InternalError, NotFound, Unavailable } from "./Domain/Errors.js"
import { JSON_CONTENT_TYPE } from "./Domain/Json.js"
import { pathOf } from "./Domain/Url.js"
import { DOCS_PATH, OPENAPI_PATH } from "./Meta/Http.js"
import { traceIdOf } from "./RequestTrace.js"

const ALLOWED_METHODS = "GET, HEAD, OPTIONS"

/**
 * Every route the service answers, as its template and a pattern: for 405 and OPTIONS on known
 * paths, and to name spans and log lines by route. Static routes first, as the router prefers them.
 */
const knownRoutes: ReadonlyArray<{ readonly template: string; readonly pattern: RegExp }> = (() => {
  const templates = [DOCS_PATH, OPENAPI_PATH]
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => void templates.push(endpoint.path)
  })
  const parameters = (template: string) => template.split("/").filter((segment) => segment.startsWith(":")).length
  return [...new Set(templates)]
    .sort((a, b) => parameters(a) - parameters(b))
    .map((template) => {
      const source = template
        .split("/")
        .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/")
      return { template, pattern: new RegExp(`^${source}$`) }
    })
})()

/** The route template a path matches (`/v1/songs/:songId`), if any. */
export const routeOf = (path: string): string | undefined =>
  knownRoutes.find((route) => route.pattern.test(path))?.template

const isKnownPath = (path: string) => routeOf(path) !== undefined


const issueText = (issue: { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }) => {
  const name = issue.path.map(String).join(".")
  if (name !== "" && issue.message.startsWith("Expected string, actual [")) return `${name} must be given once.`
  if (name === "" || issue.message.startsWith(name)) return issue.message
  return `${name}: ${issue.message}`
}

/** Effect's own decode error, re-said in one sentence that names the parameter (D2). */
const badRequestFrom = (error: HttpApiError.HttpApiDecodeError) =>
  new BadRequest({
    message: error.issues.length > 0 ? issueText(error.issues[0]!) : "The request is not valid."
  })

/** Connection failures and statement timeouts mean "try again later": 503 (D2). */
const isDatabaseUnavailable = (error: SqlError.SqlError) => {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  return (
    /acquire connection|Connection error/.test(error.message) ||
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE", "57014", "57P01", "57P03", "53300"].includes(code) ||
    code.startsWith("08") ||
    /timeout|terminat|connect/i.test(typeof cause?.message === "string" ? cause.message : "")
  )
}

const ENVELOPE_TAGS = new Set(["NotFound", "BadRequest", "Unauthorized", "Forbidden", "RateLimited", "InternalError", "Unavailable"])

const methodNotAllowed = (method: string, path: string) =>
  HttpServerResponse.unsafeJson(
    { error: { code: "bad_request", message: `Method ${method} is not allowed on ${path}; use GET or HEAD.` } },
    { status: 405, headers: { allow: ALLOWED_METHODS } }
  )

/**
 * Turns every failure into the envelope of spec part 7, once, in one place: decode errors,
 * unknown routes, wrong methods, defects and database failures. Nothing internal leaks.
 */
const envelopeErrors = (app: HttpApp.Default) =>
  Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, NotFound, HttpServerRequest.HttpServerRequest>((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const path = pathOf(request.url)
    if (path.length > 1 && path.endsWith("/")) {
      return new NotFound({ message: `No endpoint at ${path}; paths have no trailing slash.` })
    }
    if (request.method === "OPTIONS" && isKnownPath(path)) {
      return Effect.succeed(HttpServerResponse.empty({ status: 204, headers: { allow: ALLOWED_METHODS } }))
    }
    return app
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          const error: unknown = failure.value
          if (error instanceof HttpApiError.HttpApiDecodeError) return yield* badRequestFrom(error)
          if (error instanceof HttpServerError.RouteNotFound) {
            const path = pathOf(request.url)
            if (!["GET", "HEAD"].includes(request.method) && isKnownPath(path)) {
              return methodNotAllowed(request.method, path)
            }
            return yield* new NotFound({ message: `No endpoint at ${path}.` })
          }
          if (typeof error === "object" && error !== null && "_tag" in error && ENVELOPE_TAGS.has(String(error._tag))) {
            return yield* Effect.failCause(cause)
          }
        }
        if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
        const squashed = Cause.squash(cause)
        yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs("trace_id", traceIdOf(request)))
        if (squashed instanceof SqlError.SqlError && isDatabaseUnavailable(squashed)) {
          return yield* new Unavailable({ message: "The database is not available; try again shortly." })
        }
        return yield* new InternalError({ message: "Something went wrong on our side; it has been logged." })
      })
    )
  )

/**
 * The edge (src/Cache/Edge.ts: rate limit, response cache, validators, compression, CORS) goes
 * outside the envelope, so its 429s and cache hits answer before routing.
 */
export const EnvelopeErrorsLive = HttpApiBuilder.middleware(
  Api,
  Effect.map(makeEdge, (edge) => (app: HttpApp.Default) => edge(envelopeErrors(app)))
)

/**
 * Headers every response carries (D2, D3). Responses are sent before an outer middleware
 * sees them, so the outermost step (src/Telemetry.ts observeRequests) applies this in its
 * pre-response handler, which also sees error responses.
 */
export const finishResponse = (response: HttpServerResponse.HttpServerResponse) => {
  // The body's content type wins over headers, so the charset goes on the body.
  if (response.body._tag === "Uint8Array" && response.body.contentType === "application/json") {
    response = HttpServerResponse.setBody(response, HttpBody.uint8Array(response.body.body, JSON_CONTENT_TYPE))
  }
  if (response.status >= 400) response = HttpServerResponse.setHeader(response, "cache-control", "no-store")
  return response
}
