/**
 * The OpenAPI document, finished in one place. Effect derives paths, parameters and Schemas from
 * the HttpApi; this step adds what a client meets but the HttpApi cannot say: the statuses and
 * headers of the edge (caching, rate limit, staff tokens), servers, tag descriptions, formats,
 * operationIds, examples from the demo catalogue (openapi-examples.json, written by
 * `bun run examples`), and plain wording in place of Effect's generated titles and descriptions.
 * Everything here is generic over the endpoints: a new endpoint gets the same treatment.
 */
import type * as OpenApi from "effect/http-api/OpenApi"
import { type RouteKind, routeKindOf } from "../RouteKind.js"
import { FEED_FRESHNESS, PUBLIC_FRESHNESS, SNAPSHOT_FILE_FRESHNESS } from "../Cache/Freshness.js"
import examples from "./openapi-examples.json" with { type: "json" }

type JsonObject = { [key: string]: unknown }

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** One committed example per operation: the parameters of a real request and its 200 body. */
export interface OperationExample {
  readonly parameters: Readonly<Record<string, string | number | ReadonlyArray<string | number>>>
  readonly response: unknown
}
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample | undefined>> = examples

/** Names a generated client shows; Effect's default would be `Songs.detail`. */
const OPERATION_IDS: Readonly<Record<string, string>> = {
  "Songs.list": "listSongs",
  "Songs.detail": "getSong",
  "Songs.similar": "getSimilarSongs",
  "Songs.contributors": "getSongContributors",
  "Albums.list": "listAlbums",
  "Albums.detail": "getAlbum",
  "CuratedLists.list": "listCuratedLists",
  "CuratedLists.detail": "getCuratedList",
  "Artists.list": "listArtists",
  "Artists.namesakeHints": "listNamesakeHints",
  "Artists.detail": "getArtist",
  "Artists.songs": "listArtistSongs",
  "Artists.albums": "listArtistAlbums",
  "Genres.list": "listGenres",
  "Genres.detail": "getGenre",
  "Genres.songs": "listGenreSongs",
  "Labels.list": "listLabels",
  "Labels.detail": "getLabel",
  "Labels.songs": "listLabelSongs",
  "Users.list": "listUsers",
  "Users.contributions": "listUserContributions",
  "Users.loves": "listUserLoves",
  "Search.search": "search",
  "Discovery.discovery": "getDiscovery",
  "Meta.index": "getServiceIndex",
  "Meta.health": "getHealth",
  "Meta.ready": "getReadiness",
  "Meta.stats": "getStats",
  "Staff.songs": "listStaffSongs",
  "Staff.song": "getStaffSong",
  "Staff.album": "getStaffAlbum",
  "Staff.curatedList": "getStaffCuratedList",
  "Staff.stats": "getStaffStats",
  "Changes.changes": "listChanges",
  "Snapshots.manifest": "getSnapshot",
  "Snapshots.file": "getSnapshotFile"
}

/** Operations with no path parameter that still answer not_found (nothing to serve yet). */
const NOT_FOUND_WITHOUT_PATH = new Set(["getSnapshot"])

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** The operationId of an endpoint: from the table, else `list<Group>`, `get<Group>` or `<group><Name>`. */
export const operationIdOf = (group: string, endpoint: string): string => {
  const known = OPERATION_IDS[`${group}.${endpoint}`]
  if (known !== undefined) return known
  if (endpoint === "list") return `list${group}`
  if (endpoint === "detail") return `get${group.replace(/s$/, "")}`
  return `${group.charAt(0).toLowerCase()}${group.slice(1)}${capitalize(endpoint)}`
}

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Songs: "Published songs: browse by genre, label and year; one song's detail, similar songs and edit history.",
  Albums: "Published albums, EPs and singles, each with its public tracks in track order.",
  "Curated Lists": "Editor-made lists of songs or albums, with their public entries in curated order.",
  Artists: "Artists and groups credited on public songs or albums, their songs and albums, and hints that tell namesakes apart.",
  Genres: "Every genre (returned whole, not paginated) and the public songs of one genre.",
  Labels: "Record labels with their public song and album counts, and their songs.",
  Users: "Public contributor profiles: members with a username who are not banned, their contributions and loved songs.",
  Search: "One query over songs, artists, albums, curated lists, labels, genres and users.",
  Discovery: "Daily selections: new releases, trending songs, featured lists and songs released on this day.",
  Meta: "The service index, statistics, and health checks for load balancers.",
  Staff: "Every state of a song, album or list, for staff. Needs a staff bearer token; never cached, outside the rate limit.",
  Changes: "What became visible, changed or disappeared on public endpoints, in order, for mirrors.",
  Snapshots: "The whole public catalogue as files, one per type, with the /v1/changes cursor to continue from: the start of a mirror."
}

/** Formats by field name, wherever the field appears (dates YYYY-MM-DD, instants RFC 3339 UTC). */
const FIELD_FORMATS: Readonly<Record<string, string>> = {
  released_at: "date",
  latest_released_at: "date",
  released_from: "date",
  published_at: "date-time",
  updated_at: "date-time",
  deleted_at: "date-time",
  action_at: "date-time",
  joined_at: "date-time",
  last_fetched: "date-time",
  at: "date-time",
  // links within this service, relative to its origin
  docs_url: "uri-reference",
  openapi_url: "uri-reference"
}

/** Text fields that hold "" when there is nothing, so their format admits the empty string. */
const MAY_BE_EMPTY = new Set(["last_fetched", "streama_url", "streamb_url"])

const RATE_LIMIT_CAPACITY_TEXT = "360 requests per 60 seconds per client address"
const IN_FLIGHT_TEXT = "1 request of one client running and 32 more waiting their turn"

const HEADERS: Readonly<Record<string, { readonly description: string; readonly schema: JsonObject }>> = {
  ETag: {
    description: "Strong validator of this body (per content coding). Send it back in If-None-Match to get 304.",
    schema: { type: "string" }
  },
  Link: {
    description: "On a list page with a next page: `<path?query>; rel=\"next\"` (RFC 8288), this request's path and " +
      "parameters with `cursor` the page's meta.next_cursor (and no offset), relative to the origin you asked. " +
      "Absent on the last page.",
    schema: { type: "string" }
  },
  "Cache-Control": {
    description: `\`${PUBLIC_FRESHNESS.cacheControl}\` on public answers (\`${FEED_FRESHNESS.cacheControl}\` on ` +
      `/v1/changes, \`${SNAPSHOT_FILE_FRESHNESS.cacheControl}\` on a snapshot's files): a shared cache may answer with an expired copy for a day while the service fails; ` +
      "`no-store` on errors, health checks and staff answers.",
    schema: { type: "string" }
  },
  Vary: { description: "`Accept-Encoding` on public answers, `Authorization` on staff answers.", schema: { type: "string" } },
  "X-Cache": { description: "`hit` when the in-process response cache answered, else `miss`.", schema: { type: "string", enum: ["hit", "miss"] } },
  traceparent: {
    description: "W3C trace context of this request; quote its trace id when reporting a problem.",
    schema: { type: "string" }
  },
  RateLimit: {
    description: "Remaining requests and seconds until one is back: `\"ip\";r=<remaining>;t=<seconds>` " +
      "(IETF RateLimit header fields).",
    schema: { type: "string" }
  },
  "RateLimit-Policy": { description: `The limit: \`"ip";q=360;w=60\` (${RATE_LIMIT_CAPACITY_TEXT}).`, schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "Requests allowed per window (360).", schema: { type: "integer", minimum: 1 } },
  "X-RateLimit-Remaining": { description: "Requests left now.", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Reset": { description: "When the bucket is full again, in Unix epoch seconds.", schema: { type: "integer", minimum: 0 } },
  "Retry-After": {
    description: "Whole seconds to wait before the next request (at least 1): on a 429, until a token is back; on a 503, 5.",
    schema: { type: "integer", minimum: 1 }
  },
  "Content-Length": { description: "Bytes of this body.", schema: { type: "integer", minimum: 0 } },
  "Accept-Ranges": { description: "`bytes`: one range of the file may be asked with Range.", schema: { type: "string", enum: ["bytes"] } },
  "Content-Range": {
    description: "On a 206, the bytes sent and the file's size (`bytes 0-999/4567`); on a 416, the size (`bytes */4567`).",
    schema: { type: "string" }
  },
  "WWW-Authenticate": {
    description: "`Bearer realm=\"staff\"`, with `error=\"invalid_token\"` when a token was sent.",
    schema: { type: "string" }
  }
}

const RATE_LIMIT_HEADERS = ["RateLimit", "RateLimit-Policy", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]


/**
 * Which headers an answer of this status can carry on an endpoint of this area; `paged`: the
 * endpoint takes a `cursor`, so its pages link to the next one.
 */
export const documentedHeaders = (area: RouteKind, status: number, paged = false): ReadonlyArray<string> => {
  const limited = area === "public" || (area === "staff" && status !== 200)
  const base = ["Cache-Control", "traceparent", ...(limited ? RATE_LIMIT_HEADERS : [])]
  const link = paged && (status === 200 || (area === "public" && status === 304)) ? ["Link"] : []
  if (status === 429 || status === 503) return [...base, "Retry-After"]
  if (area === "public" && (status === 200 || status === 304)) return [...base, "ETag", ...link, "Vary", "X-Cache"]
  if (area === "staff") return [...base, ...link, "Vary", ...(status === 401 ? ["WWW-Authenticate"] : [])]
  return base
}

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: "bad_request: a path or query parameter is not valid; the message names it and the allowed values.",
  401: "unauthorized: no bearer token, or one that is not valid (signature, expiry, issuer, audience, lifetime).",
  403: "forbidden: a valid token without the staff role.",
  404: "not_found: nothing public has this id, slug or username.",
  429: `rate_limited: more than ${RATE_LIMIT_CAPACITY_TEXT}, or more than ${IN_FLIGHT_TEXT}; wait Retry-After seconds.`,
  500: "internal_error: something failed on the service's side; the traceparent header identifies the request in the logs.",
  503: "internal_error: the database is not reachable or did not answer in time; try again shortly."
}

const ref = (kind: "schemas" | "headers", name: string) => ({ $ref: `#/components/${kind}/${name}` })

const errorContent = (component: string) => ({ "application/json": { schema: ref("schemas", component) } })

/** Drops Effect's generated titles and sentences ("an integer", "a string matching the pattern ..."). */
const isGeneratedWording = (text: string) => /^an? [a-z]/.test(text)

const withFormat = (schema: JsonObject, format: string, mayBeEmpty: boolean): JsonObject => {
  const formatted = { ...schema, format }
  return mayBeEmpty ? { anyOf: [formatted, { type: "string", maxLength: 0 }] } : formatted
}

/** Adds `format` to a string field, or to the string branch of a nullable one. */
const formatField = (name: string, schema: JsonObject): JsonObject => {
  const format = FIELD_FORMATS[name] ?? (name.endsWith("_url") ? "uri" : undefined)
  if (format === undefined) return schema
  const mayBeEmpty = MAY_BE_EMPTY.has(name)
  if (schema.type === "string") return withFormat(schema, format, mayBeEmpty)
  if (Array.isArray(schema.anyOf)) {
    const { anyOf, ...rest } = schema
    return {
      ...rest,
      anyOf: anyOf.map((branch: unknown) =>
        isObject(branch) && branch.type === "string" && branch.enum === undefined ? { ...branch, format } : branch)
    }
  }
  return schema
}

/**
 * A parameter's own description of what it must be (src/Contract/Params.ts) in place of the
 * text it travels as: Effect writes `{ type: "string", allOf: [{ type: "integer", ... }] }`.
 */
const flattenDescribed = (node: JsonObject): JsonObject => {
  const { allOf, type: _type, ...rest } = node
  if (!Array.isArray(allOf) || allOf.length !== 1 || !isObject(allOf[0]) || allOf[0].type === undefined) return node
  return { ...rest, ...allOf[0] }
}

/** Effect's bounds of a safe integer say nothing a client needs: every integer here is far inside them. */
const withoutSafeIntegerBounds = (node: JsonObject): JsonObject => {
  const { minimum, maximum, ...rest } = node
  return {
    ...rest,
    ...(minimum === undefined || minimum === -Number.MAX_SAFE_INTEGER ? {} : { minimum }),
    ...(maximum === undefined || maximum === Number.MAX_SAFE_INTEGER ? {} : { maximum })
  }
}

/** Walks a JSON Schema: wording, inlined primitives, formats. */
const cleanSchema = (input: unknown, primitives: Readonly<Record<string, JsonObject>>): unknown => {
  if (Array.isArray(input)) return input.map((item) => cleanSchema(item, primitives))
  if (!isObject(input)) return input
  const node = input.type === "integer" ? withoutSafeIntegerBounds(flattenDescribed(input)) : flattenDescribed(input)
  if (typeof node.$ref === "string") {
    const primitive = primitives[node.$ref.replace("#/components/schemas/", "")]
    if (primitive !== undefined) return primitive
  }
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "title") continue
    if (key === "example") {
      out[key] = value
      continue
    }
    if (key === "description" && typeof value === "string" && isGeneratedWording(value)) continue
    if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, field]) => {
          const cleaned = cleanSchema(field, primitives)
          return [name, isObject(cleaned) ? formatField(name, cleaned) : cleaned]
        })
      )
      continue
    }
    out[key] = cleanSchema(value, primitives)
  }
  return out
}

/** Components that are a bare primitive (Effect's `Int`, `Trim`): inlined, then dropped. */
const primitiveComponents = (schemas: Record<string, unknown>): Record<string, JsonObject> => {
  const primitives: Record<string, JsonObject> = {}
  for (const [name, schema] of Object.entries(schemas)) {
    if (isObject(schema) && typeof schema.type === "string" && schema.type !== "object" && schema.type !== "array") {
      const { title: _title, description, ...rest } = schema
      primitives[name] = typeof description === "string" && !isGeneratedWording(description) ? { ...rest, description } : rest
    }
  }
  return primitives
}

/** The operation's rules, from the one rule the edge follows too (src/RouteKind.ts). */
const areaOf = (operation: OpenApi.OpenAPISpecOperation): RouteKind => {
  const [group = "", endpoint = ""] = operation.operationId.split(".")
  return routeKindOf(group, endpoint)
}

const headerRefs = (area: RouteKind, status: number, paged = false) =>
  Object.fromEntries(documentedHeaders(area, status, paged).map((name) => [name, ref("headers", name)]))

const successDescription = (schema: unknown) =>
  isObject(schema) && typeof schema.$ref === "string" && /List$/.test(schema.$ref)
    ? "A page of items under data, with meta (total, limit, offset, next_cursor)."
    : "The resource under data."

/** The 200 of an operation answering a file (its bytes as they are, not JSON): its media type and schema. */
const fileContentOf = (operation: OpenApi.OpenAPISpecOperation): JsonObject | undefined => {
  const content = (operation.responses as Record<string, OpenApi.OpenApiSpecResponse>)["200"]?.content ?? {}
  const [type, media] = Object.entries(content)[0] ?? []
  return type === undefined || type === "application/json" || !isObject(media) ? undefined : { [type]: { schema: media.schema } }
}

/**
 * A file's own answers (src/Snapshots/Http.ts): its bytes, one range of them, 304 for its ETag,
 * 416 for a range past its end. Never compressed nor kept by the response cache: no Vary, no X-Cache.
 */
const fileResponses = (area: RouteKind, content: JsonObject): Record<string, JsonObject> => {
  const fileHeaders = (status: number, own: ReadonlyArray<string>) => ({
    ...Object.fromEntries(Object.entries(headerRefs(area, status)).filter(([name]) => name !== "Vary" && name !== "X-Cache")),
    ...Object.fromEntries(own.map((name) => [name, ref("headers", name)]))
  })
  return {
    "200": { description: "The whole file, its bytes as stored (no Content-Encoding).", headers: fileHeaders(200, ["Accept-Ranges", "Content-Length"]), content },
    "206": {
      description: "One range of the file (`Range: bytes=first-last`, `first-` or `-suffix`, clipped to the file); " +
        "with If-Range naming another ETag, several ranges or a malformed one, the whole file (200) instead.",
      headers: fileHeaders(200, ["Accept-Ranges", "Content-Length", "Content-Range"]),
      content
    },
    "304": { description: "Not Modified: If-None-Match named the file's ETag; no body. Takes a token like a 200.", headers: fileHeaders(304, ["Accept-Ranges"]) },
    "416": {
      description: "bad_request: the range starts past the file's end; Content-Range says its size.",
      headers: fileHeaders(416, ["Content-Range"]),
      content: errorContent("BadRequestError")
    }
  }
}

/** The statuses an operation can answer, with their headers and bodies. */
const describeResponses = (operation: OpenApi.OpenAPISpecOperation, operationId: string) => {
  const area = areaOf(operation)
  const responses: Record<string, JsonObject> = {}
  const declared = operation.responses as Record<string, OpenApi.OpenApiSpecResponse>
  const hasPathParameters = operation.parameters.some((parameter) => parameter.in === "path")
  const paged = operation.parameters.some((parameter) => parameter.in === "query" && parameter.name === "cursor")
  const example = OPERATION_EXAMPLES[operationId]
  const file = fileContentOf(operation)
  if (file !== undefined) Object.assign(responses, fileResponses(area, file))
  for (const [status, response] of Object.entries(declared)) {
    const code = Number(status)
    if (code === 404 && !hasPathParameters && !NOT_FOUND_WITHOUT_PATH.has(operationId)) continue
    if (file !== undefined && code === 200) continue
    const content = response.content?.["application/json"]
    if (code === 200) {
      responses[status] = {
        description: successDescription(content?.schema),
        headers: headerRefs(area, code, paged),
        content: { "application/json": { ...content, ...(example === undefined ? {} : { example: example.response }) } }
      }
      if (area === "public") {
        responses["304"] = {
          description: "Not Modified: If-None-Match named the current ETag (or was `*`); no body. Free only when it cost " +
            "nothing: a 304 the response cache gives for an ETag you named takes no rate-limit token, also past your " +
            "limit; any other 304, and every answer to `If-None-Match: *`, takes a token like a 200.",
          headers: headerRefs(area, 304, paged)
        }
      }
      continue
    }
    responses[status] = {
      description: ERROR_DESCRIPTIONS[code] ?? response.description,
      headers: headerRefs(area, code),
      content: response.content
    }
  }
  if (area !== "health") {
    responses["429"] = { description: ERROR_DESCRIPTIONS[429], headers: headerRefs(area, 429), content: errorContent("RateLimitedError") }
  }
  responses["400"] = { ...responses["400"], description: ERROR_DESCRIPTIONS[400], content: errorContent("BadRequestError") }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)))
}

const IF_NONE_MATCH = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "The ETag of a copy you hold; the answer is then 304 without a body when it is still current.",
  schema: { type: "string" }
}

const RANGE = {
  name: "Range",
  in: "header",
  required: false,
  description: "One byte range of the file, `bytes=first-last`, `bytes=first-` or `bytes=-suffix`: answered 206.",
  schema: { type: "string" }
}

const IF_RANGE = {
  name: "If-Range",
  in: "header",
  required: false,
  description: "The file's ETag: the range is sent only while the file is still that one (else the whole file).",
  schema: { type: "string" }
}

const describeParameters = (operation: OpenApi.OpenAPISpecOperation, operationId: string, area: RouteKind) => {
  const example = OPERATION_EXAMPLES[operationId]
  const parameters: Array<JsonObject> = operation.parameters.map((parameter) => {
    const schema = flattenDescribed(parameter.schema as unknown as JsonObject)
    const description = typeof schema.description === "string" ? schema.description : parameter.description
    const value = example?.parameters[parameter.name]
    return {
      name: parameter.name,
      in: parameter.in,
      required: parameter.required,
      ...(description === undefined ? {} : { description }),
      // Lists travel as one comma-separated value: ids=1,2,3.
      ...(schema.type === "array" ? { style: "form", explode: false } : {}),
      schema,
      ...(value === undefined ? {} : { example: value })
    }
  })
  const ranges = fileContentOf(operation) === undefined ? [] : [RANGE, IF_RANGE]
  return area === "public" ? [...parameters, IF_NONE_MATCH, ...ranges] : parameters
}

const DESCRIPTION = [
  "Public, read-only REST API over a catalogue of Malaysian music: songs, albums, curated lists, artists,",
  "genres, labels and public contributor profiles, with search, discovery and statistics. Only published,",
  "non-deleted rows are ever shown on public endpoints.",
  "",
  "- Lists answer `{ data: [...], meta: { total, limit, offset, next_cursor } }`; details `{ data: {...} }`;",
  "  errors `{ error: { code, message } }` with the codes not_found, bad_request, unauthorized, forbidden,",
  "  rate_limited and internal_error.",
  "- Pages: `limit` 1 to 80 (default 20) and `offset`, or `cursor` from `meta.next_cursor` (\"\" on the last page);",
  "  a page with a next one also links to it: `Link: </v1/songs?limit=20&cursor=...>; rel=\"next\"` (RFC 8288).",
  `- Rate limit: ${RATE_LIMIT_CAPACITY_TEXT}, with RateLimit headers on every answer and 429 past it; a 304 the response cache answers for an ETag you name is free.`,
  `- At most ${IN_FLIGHT_TEXT}: a request past them waits; past the waiting ones, 429.`,
  `- Public answers carry an ETag and \`Cache-Control: ${PUBLIC_FRESHNESS.cacheControl}\` (the change feed: \`${FEED_FRESHNESS.cacheControl}\`).`,
  "- Staff endpoints under /v1/admin need a staff bearer token.",
].join("\n")

/** The document as published at /v1/openapi.json. */
export const describeDocument = (derived: Record<string, unknown>): JsonObject => {
  const spec = derived as unknown as OpenApi.OpenAPISpec
  const schemas: Record<string, unknown> = { ...spec.components.schemas }
  // a bare alias of another component (Effect names the error class's side too)
  for (const [name, schema] of Object.entries(schemas)) {
    if (isObject(schema) && Object.keys(schema).length === 1 && typeof schema.$ref === "string") delete schemas[name]
  }
  const primitives = primitiveComponents(schemas)

  const paths: Record<string, JsonObject> = {}
  for (const [path, item] of Object.entries(spec.paths)) {
    const operations: JsonObject = {}
    for (const [method, operation] of Object.entries(item as Record<string, OpenApi.OpenAPISpecOperation | undefined>)) {
      if (operation === undefined) continue
      const [group = "", endpoint = operation.operationId] = operation.operationId.split(".")
      const operationId = operationIdOf(group, endpoint)
      const area = areaOf(operation)
      operations[method] = cleanSchema({
        ...operation,
        operationId,
        parameters: describeParameters(operation, operationId, area),
        responses: describeResponses(operation, operationId)
      }, primitives)
    }
    paths[path] = operations
  }

  const keptSchemas = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => primitives[name] === undefined)
      .map(([name, schema]) => [name, cleanSchema(schema, primitives)])
  )
  return {
    ...spec,
    info: {
      ...spec.info,
      description: DESCRIPTION,
      license: { name: "Proprietary; all rights reserved", identifier: "LicenseRef-Proprietary" }
    },
    servers: [{
      url: "/",
      description: "The origin this document is served from (a local instance: http://localhost:3000)."
    }],
    tags: spec.tags.map((tag) => ({ ...tag, description: tag.description ?? TAG_DESCRIPTIONS[tag.name] ?? tag.name })),
    paths,
    components: {
      ...spec.components,
      schemas: keptSchemas,
      headers: Object.fromEntries(Object.entries(HEADERS).map(([name, header]) => [name, { ...header }]))
    }
  }
}
