/**
 * The HTTP server's metrics by OpenTelemetry's conventions (docs/operations.md, "Metrics"):
 * `http.server.request.duration` and `http.server.active_requests`. Each label takes its value
 * from a finite set the code fixes (the methods HTTP defines else `_OTHER`, two schemes, the
 * route templates else `""`, the statuses the service answers), so whatever a client sends it
 * lands in one of REQUEST_DURATION_SERIES_BOUND series: the set is closed by construction, and
 * no series is ever refused. A series is made the first time it is used, in a slot of a fixed
 * array; per request the work is one histogram update (and the in-flight count), no allocation.
 */
import type * as Metric from "effect/Metric"
import type { AppConfigValues } from "../Config.js"
import { add, durationHistogram, gauge, metricsWanted, rateLimitRefusals, record } from "../Metrics.js"
import { routes } from "./Routes.js"

/** The methods HTTP defines; any other is `_OTHER`. */
export const KNOWN_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "TRACE"] as const
const METHODS: ReadonlyArray<string> = [...KNOWN_METHODS, "_OTHER"]

const methodSlot = (method: string) => {
  switch (method) {
    case "GET":
      return 0
    case "HEAD":
      return 1
    case "OPTIONS":
      return 2
    case "POST":
      return 3
    case "PUT":
      return 4
    case "PATCH":
      return 5
    case "DELETE":
      return 6
    case "CONNECT":
      return 7
    case "TRACE":
      return 8
    default:
      return 9
  }
}

const SCHEMES = ["http", "https"] as const

/** Off-route (`""`) first, then every route template. */
const ROUTES: ReadonlyArray<string> = ["", ...routes.map((route) => route.template)]
const routeSlots = new Map(ROUTES.map((template, slot) => [template, slot]))

/**
 * Every status the service answers: the edge's (200, 204 to OPTIONS, 304, 400, 404, 405, 414,
 * 429, 431, 500 and 503), the staff routes' 401 and 403, a snapshot file's 206 and 416, and what the platform answers for a
 * request (413 for a body too large, 499 when the client hung up). Any other status (none is
 * made) is counted as the first listed code of its class, 5xx beyond.
 */
export const ANSWERED_STATUSES = [200, 204, 206, 304, 400, 401, 403, 404, 405, 413, 414, 416, 429, 431, 499, 500, 503] as const

const statusSlots = (() => {
  const slotOf = (status: number) => ANSWERED_STATUSES.indexOf(status as (typeof ANSWERED_STATUSES)[number])
  const classSlots: Record<number, number> = { 2: slotOf(200), 3: slotOf(304), 4: slotOf(400) }
  const table = new Uint8Array(600)
  for (let status = 0; status < 600; status++) {
    const exact = slotOf(status)
    table[status] = exact !== -1 ? exact : classSlots[Math.floor(status / 100)] ?? slotOf(500)
  }
  return table
})()
const statusSlot = (status: number) => statusSlots[status] ?? statusSlots[500]!

/** The most series `http.server.request.duration` can have, whatever clients send. */
export const REQUEST_DURATION_SERIES_BOUND = METHODS.length * SCHEMES.length * ROUTES.length * ANSWERED_STATUSES.length

const durations = new Array<Metric.Metric<number, unknown> | undefined>(REQUEST_DURATION_SERIES_BOUND)

const durationAt = (slot: number) => {
  const statusIndex = slot % ANSWERED_STATUSES.length
  const routeIndex = Math.floor(slot / ANSWERED_STATUSES.length) % ROUTES.length
  const origin = Math.floor(slot / (ANSWERED_STATUSES.length * ROUTES.length))
  const status = ANSWERED_STATUSES[statusIndex]!
  return durationHistogram("http.server.request.duration", "Duration of HTTP server requests, in seconds (its count is the request count)", {
    "http.request.method": METHODS[Math.floor(origin / SCHEMES.length)]!,
    "url.scheme": SCHEMES[origin % SCHEMES.length]!,
    "http.route": ROUTES[routeIndex]!,
    "http.response.status_code": String(status),
    ...(status >= 500 ? { "error.type": String(status) } : {})
  })
}

const active = METHODS.flatMap((method) =>
  SCHEMES.map((scheme) =>
    gauge("http.server.active_requests", "HTTP server requests accepted and not yet answered", undefined, {
      "http.request.method": method,
      "url.scheme": scheme
    })
  )
)

/**
 * A request's method and scheme as one number (its `active` slot). `https` only when the trusted
 * proxies' X-Forwarded-Proto says so (the entry the outermost trusted proxy wrote, as for
 * X-Forwarded-For): this server itself speaks plain HTTP.
 */
export type RequestOrigin = number

const originOf = (request: Request, trustedHops: number): RequestOrigin => {
  const method = methodSlot(request.method) * SCHEMES.length
  if (trustedHops === 0) return method
  const proto = request.headers.get("x-forwarded-proto")
  if (proto === null) return method
  if (proto === "https") return method + 1
  const entries = proto.split(",")
  return entries[Math.max(0, entries.length - trustedHops)]?.trim().toLowerCase() === "https" ? method + 1 : method
}

export interface RequestMeter {
  readonly originOf: (request: Request) => RequestOrigin
  /** The request is taken on: one more in flight until `answered`. */
  readonly accepted: (request: Request) => RequestOrigin
  /** The request accepted is answered: one less in flight, and its duration counted. */
  readonly answered: (origin: RequestOrigin, route: string | undefined, status: number, durationMs: number) => void
  /** A request answered within the call that took it on (the front door's): never observably in flight, only counted. */
  readonly counted: (origin: RequestOrigin, route: string | undefined, status: number, durationMs: number) => void
}

const counted = (origin: RequestOrigin, route: string | undefined, status: number, durationMs: number) => {
  const slot = ((origin * ROUTES.length + (route === undefined ? 0 : routeSlots.get(route) ?? 0)) * ANSWERED_STATUSES.length) +
    statusSlot(status)
  record(durations[slot] ??= durationAt(slot), durationMs / 1000)
  if (status === 429) add(rateLimitRefusals)
}

/** The HTTP metrics of this server, or undefined when nothing reads metrics (then nothing is counted). */
export const makeRequestMeter = (config: AppConfigValues): RequestMeter | undefined => {
  if (!metricsWanted(config)) return undefined
  const trustedHops = config.trustProxy
  return {
    originOf: (request) => originOf(request, trustedHops),
    accepted: (request) => {
      const origin = originOf(request, trustedHops)
      add(active[origin]!, 1)
      return origin
    },
    answered: (origin, route, status, durationMs) => {
      add(active[origin]!, -1)
      counted(origin, route, status, durationMs)
    },
    counted
  }
}
