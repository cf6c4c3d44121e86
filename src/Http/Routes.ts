import * as HttpApi from "effect/http-api/HttpApi"
import * as FindMyWay from "effect/http/FindMyWay"
import * as AST from "effect/SchemaAST"
import { Api } from "../Api.js"
import { DOCS_PATH, OPENAPI_PATH } from "../Meta/Http.js"
import { type Freshness, freshnessOf, PUBLIC_FRESHNESS } from "../Cache/Freshness.js"
import { type RouteKind, routeKindOf } from "../RouteKind.js"

export type { RouteKind } from "../RouteKind.js"

export interface Route {
  /** `/v1/songs/:songId` */
  readonly template: string
  readonly kind: RouteKind
  /** how long its public answers may be reused (src/Cache/Freshness.ts) */
  readonly freshness: Freshness
  /** Each segment after the leading slash: a literal, or a parameter's name. */
  readonly segments: ReadonlyArray<{ readonly literal: string } | { readonly parameter: string }>
  /** The query parameters its handler reads; any other is ignored, so it is no part of the request's meaning. */
  readonly queryNames: ReadonlySet<string>
}

/** The wire names of a query schema: the encoded side's property names. */
const propertyNamesOf = (ast: AST.AST): ReadonlyArray<string> => {
  switch (ast._tag) {
    case "Objects":
      return ast.propertySignatures.flatMap((p) => (typeof p.name === "string" ? [p.name] : []))
    case "Union":
      return ast.types.flatMap(propertyNamesOf)
    case "Suspend":
      return propertyNamesOf(ast.thunk())
    default:
      return []
  }
}

const makeRoute = (
  template: string,
  kind: RouteKind,
  queryNames: ReadonlyArray<string> = [],
  freshness: Freshness = PUBLIC_FRESHNESS
): Route => ({
  template,
  kind,
  freshness,
  queryNames: new Set(queryNames),
  segments: template.slice(1).split("/").map((segment) =>
    segment.startsWith(":") ? { parameter: segment.slice(1) } : { literal: segment }
  )
})

/** Every route the service answers, from the HttpApi itself, and the two document routes beside it. */
export const routes: ReadonlyArray<Route> = (() => {
  const found: Array<Route> = [makeRoute(DOCS_PATH, "public"), makeRoute(OPENAPI_PATH, "public")]
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, group }) =>
      void found.push(makeRoute(
        endpoint.path,
        routeKindOf(group.identifier, endpoint.identifier),
        endpoint.query === undefined ? [] : propertyNamesOf(AST.toEncoded(endpoint.query.ast)),
        freshnessOf(group.identifier, endpoint.identifier)
      ))
  })
  return found
})()

/**
 * How paths match, for the router and the edge alike (docs/edge.md, "Paths match exactly"):
 * case-sensitive, `//` is not `/`, no trailing slash; no length limit on a parameter of its own
 * (a target over MAX_TARGET_BYTES is our 414 before any match).
 */
export const ROUTER_CONFIG: FindMyWay.RouterConfig = {
  caseSensitive: true,
  ignoreDuplicateSlashes: false,
  ignoreTrailingSlash: false,
  maxParamLength: 8192
}

/** The one matcher: find-my-way, as the HttpApi's router uses it, over the same routes with the same settings. */
const matcher: FindMyWay.Router<Route> = (() => {
  const router = FindMyWay.make<Route>(ROUTER_CONFIG)
  for (const route of routes) router.on("GET", route.template as FindMyWay.PathInput, route)
  return router
})()

/**
 * A `%` escape of a character that may stand in the path as itself (RFC 3986 unreserved): such a
 * spelling is another path, not this one, so `/v1/%61dmin` never reaches the staff routes.
 */
const ESCAPED_UNRESERVED = /%(?:[46][1-9a-fA-F]|[57][0-9aA]|3[0-9]|2[dDeE]|5[fF]|7[eE])/

/**
 * A raw `;` or `#`: the platform's router (find-my-way) ends the path there, reading the rest as a
 * query, so `/v1/songs/1;x/similar` would be served as `/v1/songs/1`. No path of the API holds one.
 */
const ROUTER_PATH_END = /[;#]/

/**
 * An empty segment (`//`, a trailing slash): find-my-way would take it for an empty parameter,
 * `/v1/songs/` for song "". No path of the API has one.
 */
const emptySegment = (path: string) => (path.length > 1 && path.endsWith("/")) || path.includes("//")

/**
 * The route a path names, by the router's own matcher, stricter by three rules of the edge's: no
 * empty segment, no escaped letters or digits, no `;`. Every other escape is of a character that no literal segment
 * holds, so it stands in a parameter; it is matched as a plain character there (`%` -> `~`), so a
 * parameter that is not valid UTF-8 still finds its route (and is answered 400 naming it) where
 * find-my-way would give up decoding the path. Literal segments win over parameters:
 * `/v1/artists/namesake-hints` is not artist `namesake-hints`.
 * Dot segments never get here: Bun resolves them while parsing the request target.
 */
export const matchRoute = (path: string): Route | undefined => {
  if (path[0] !== "/" || ROUTER_PATH_END.test(path) || emptySegment(path)) return undefined
  if (path.includes("%")) {
    if (ESCAPED_UNRESERVED.test(path)) return undefined
    path = path.replaceAll("%", "~")
  }
  return matcher.find("GET", path)?.handler
}

/**
 * The routes the router was given, checked against the edge's when the server starts: the same
 * paths under the same settings (ROUTER_CONFIG) into the same matcher, so both find the same route
 * for any path. Undefined when they agree, else what differs.
 */
export const disagreement = (registered: ReadonlyArray<string>): string | undefined => {
  const known = new Set(routes.map((route) => route.template))
  const given = new Set(registered)
  const unknown = [...given].filter((path) => !known.has(path))
  const missing = [...known].filter((path) => !given.has(path))
  if (unknown.length === 0 && missing.length === 0) return undefined
  return `the router and the edge have different routes: only the router has [${unknown.join(", ")}], only the edge [${missing.join(", ")}]`
}

/** The parameters of `path` under `route` (which it matched), still percent-encoded. */
export const parametersOf = (route: Route, path: string): ReadonlyArray<readonly [name: string, raw: string]> => {
  const segments = path.slice(1).split("/")
  const found: Array<readonly [string, string]> = []
  route.segments.forEach((segment, i) => {
    if ("parameter" in segment) found.push([segment.parameter, segments[i] ?? ""])
  })
  return found
}

/** One name or value as the router reads it: `+` is a space, escapes decoded, kept as sent when they do not decode. */
export const decodeQueryPart = (raw: string) => {
  const text = raw.includes("+") ? raw.replaceAll("+", " ") : raw
  if (!text.includes("%")) return text
  try {
    return decodeURIComponent(text) || text
  } catch {
    return text
  }
}

/**
 * What a request means to its route's handler, as one string: the path, then the query parameters
 * the handler reads, decoded as the router decodes them, sorted by name (a repeated name keeps its
 * values' order), each re-encoded one way. Unknown parameters, their order and the spelling of
 * escapes change nothing a handler answers, so they change nothing here: the response cache's key.
 */
export const meaningOf = (route: Route, path: string, target: string): string => {
  const start = target.indexOf("?")
  if (start === -1 || route.queryNames.size === 0) return path
  const known: Array<readonly [string, string]> = []
  for (const pair of target.slice(start + 1).split("&")) {
    if (pair === "") continue
    const equals = pair.indexOf("=")
    const name = decodeQueryPart(equals === -1 ? pair : pair.slice(0, equals))
    if (route.queryNames.has(name)) known.push([name, equals === -1 ? "" : decodeQueryPart(pair.slice(equals + 1))])
  }
  if (known.length === 0) return path
  known.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return `${path}?${known.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join("&")}`
}
