/**
 * The contract, checked against the live service on the fixture: for every operation of the
 * HttpApi, requests generated from its own parameter Schemas (valid ones, and valid ones with one
 * value broken), each answer's status and headers among those the OpenAPI document lists for that
 * operation, each body decoded with the endpoint's declared Schema for that status with excess
 * properties refused (the JSON PostgreSQL builds cannot drift from the Schemas), and never a 5xx.
 */
import { beforeAll, describe, expect, test } from "bun:test"
import * as OpenApi from "effect/http-api/OpenApi"
import * as FastCheck from "fast-check"
import * as Schema from "effect/Schema"
import { Api } from "../src/Api.js"
import * as Either from "./support/either.js"
import { fromResult } from "./support/either.js"
import { decodeStrict, fillPath, operations, queryOf, type Operation } from "./support/operations.js"
import { propertySeeds } from "./support/propertySeeds.js"
import { wireRecord } from "./support/samples.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { hs256, staffClaims } from "./support/tokens.js"

const SEED = 20240501
const VALID_CASES = 10
const BROKEN_CASES = 10

/** Framing and CORS headers any HTTP answer may carry; every other header must be documented. */
const TRANSPORT_HEADERS = new Set(["content-type", "content-length", "content-encoding", "date", "connection", "keep-alive", "transfer-encoding"])

/** Parameters that carry a token the service made (meta.next_cursor): any other text is refused. */
const TOKENS = ["cursor", "since"]

/** Values that break a parameter of some kind: ids, counts, choices, text, usernames. */
const BAD_VALUES = ["", "0", "-1", "abc", "1e3", "0x10", "4242.0", " 12", "012", "2147483648", "99999999999", "81", "21", "x".repeat(101), "123", "bogus", ","]

interface Documented {
  readonly responses: Record<string, { headers?: Record<string, unknown> }>
}

let server: TestServer
let document: { paths: Record<string, Record<string, Documented>> }
let staffToken: string
let fanToken: string
/** Real values for path parameters, so that valid requests reach 200 as well as 404. */
let knownPathValues: Record<string, ReadonlyArray<string>>

beforeAll(async () => {
  server = await sharedServer()
  document = (await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json()) as typeof document
  staffToken = await hs256()
  fanToken = await hs256(staffClaims({ role: "fan" }))
  const list = async (path: string) =>
    ((await (await fetch(server.baseUrl + path)).json()) as { data: Array<Record<string, unknown>> }).data
  const ids = (items: Array<Record<string, unknown>>, field = "id") => items.map((item) => String(item[field]))
  knownPathValues = {
    songId: ids(await list("/v1/songs?limit=5")),
    albumId: ids(await list("/v1/albums?limit=5")),
    listId: ids(await list("/v1/curated-lists?limit=5")),
    artistId: ids(await list("/v1/artists?limit=5")),
    labelId: ids(await list("/v1/labels?limit=5")),
    slug: ids(await list("/v1/genres"), "slug"),
    username: ids(await list("/v1/users?limit=5"), "username")
  }
}, 60_000)

const documentedOf = (operation: Operation) =>
  document.paths[operation.path.replace(/:(\w+)/g, "{$1}")]?.[operation.method.toLowerCase()]

const isStaff = (operation: Operation) => operation.path.startsWith("/v1/admin")

/** Wire values (text) of parameters drawn from the Schema's own Arbitrary, then encoded. */
const sampleWire = (schema: Schema.Codec<unknown, unknown> | undefined, count: number, seed: number) => {
  if (schema === undefined) return Array.from({ length: count }, () => ({}) as Record<string, string>)
  try {
    return FastCheck.sample(wireRecord(schema), { seed, numRuns: count })
  } catch (error) {
    // a custom filter that random values rarely pass: give the parameter an `arbitrary` annotation
    throw new Error(`cannot generate parameters (add an arbitrary annotation, as src/Contract/Params.ts does): ${error}`)
  }
}

interface Case {
  readonly pathValues: Record<string, string>
  readonly query: Record<string, string>
  readonly headers: Record<string, string>
}

const decodes = (schema: Schema.Codec<unknown, unknown> | undefined, values: Record<string, string>) =>
  schema === undefined || Either.isRight(fromResult(Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown, never, never>)(values)))

/** Checks one answer against the document and the Schemas; returns its status. */
const checkAnswer = async (operation: Operation, request: Case) => {
  const path = fillPath(operation.path, request.pathValues) + queryOf(request.query)
  const response = await fetch(server.baseUrl + path, { headers: request.headers })
  const text = await response.text()
  const where = `${operation.operationId} ${path} -> ${response.status} ${text.slice(0, 200)}`
  const documented = documentedOf(operation)!
  expect(response.status < 500 ? where : `5xx: ${where}`).toBe(where)
  // A value the router cannot take as one path segment never reaches the operation: not_found.
  const routed = Object.values(request.pathValues).every((value) => value !== "" && value !== "." && value !== "..")
  if (routed) expect(Object.keys(documented.responses).includes(String(response.status)) ? where : `undocumented status: ${where}`).toBe(where)
  const listed = new Set(Object.keys(documented.responses[String(response.status)]?.headers ?? {}).map((name) => name.toLowerCase()))
  for (const [name] of response.headers) {
    if (!routed || TRANSPORT_HEADERS.has(name) || name.startsWith("access-control-")) continue
    expect(listed.has(name) ? name : `undocumented header ${name}: ${where}`).toBe(name)
  }
  const schema = operation.bodies.get(response.status)
  if (schema !== undefined) {
    const decoded = decodeStrict(schema, JSON.parse(text))
    expect(Either.isRight(decoded) ? "decodes" : `${where}\n${Either.isLeft(decoded) ? String(decoded.left) : ""}`).toBe("decodes")
  }
  return { status: response.status, etag: response.headers.get("etag") }
}

let cases = 0

describe("contract: every operation against the OpenAPI document and its Schemas", () => {
  test("the service serves the document derived from the HttpApi", () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(OpenApi.fromApi(Api))))
  })

  for (const run of propertySeeds(SEED)) operations.forEach((operation, index) => {
    test(`${operation.operationId}: generated requests (${run.label})`, async () => {
      expect(documentedOf(operation)).toBeDefined()
      const seed = run.seed + index
      const random = FastCheck.sample(FastCheck.nat(), { seed, numRuns: VALID_CASES + BROKEN_CASES })
      const paths = sampleWire(operation.pathSchema, VALID_CASES, seed)
      const queries = sampleWire(operation.urlParamsSchema, VALID_CASES, seed + 1)
      const auth = isStaff(operation) ? { authorization: `Bearer ${staffToken}` } : {}

      // every other valid case names a real row, so that 200s are checked as well as 404s
      const valid: Array<Case> = paths.map((pathValues, i) => ({
        pathValues: i % 2 === 0
          ? Object.fromEntries(Object.keys(pathValues).map((name) => {
            const known = knownPathValues[name] ?? []
            return [name, known[random[i]! % Math.max(known.length, 1)] ?? pathValues[name]!]
          }))
          : pathValues,
        query: queries[i]!,
        headers: auth
      }))
      // each query parameter alone as well: a value its Schema takes is never refused (tokens aside,
      // which only the endpoint that made them accepts); together, parameters may exclude each other
      const queryNames = documentedQueryNames(operation)
      const required = Object.fromEntries(Object.entries(valid[0]!.query).filter(([name]) => queryNames[name] === "required"))
      const single = Object.keys(queryNames).flatMap((name) =>
        queries.filter((query) => query[name] !== undefined).slice(0, 1)
          .map((query) => ({ ...valid[0]!, query: { ...required, [name]: query[name]! } })))
      for (const request of [...valid, ...single]) {
        const { status, etag } = await checkAnswer(operation, request)
        cases++
        const optional = Object.keys(request.query).filter((name) => queryNames[name] !== "required")
        const alone = optional.length <= 1 && !TOKENS.some((name) => request.query[name] !== undefined)
        if (alone) expect(status === 400 ? `400 for valid ${JSON.stringify(request)}` : "ok").toBe("ok")
        if (status === 200 && etag !== null) {
          const revalidated = await checkAnswer(operation, { ...request, headers: { ...request.headers, "if-none-match": etag } })
          cases++
          // 304, unless the answer changed meanwhile (a feed moves on): then a new ETag
          expect(revalidated.status === 304 || (revalidated.status === 200 && revalidated.etag !== etag)).toBe(true)
        }
      }

      // one value broken: the service refuses exactly what the Schema refuses
      for (let i = 0; i < BROKEN_CASES; i++) {
        const base = valid[i % valid.length]!
        const names = [...Object.keys(base.pathValues).map((name) => ["path", name] as const), ...Object.keys(documentedQueryNames(operation)).map((name) => ["query", name] as const)]
        if (names.length === 0) break
        const [where, name] = names[random[VALID_CASES + i]! % names.length]!
        const bad = i % 3 === 2
          ? FastCheck.sample(FastCheck.string({ maxLength: 8 }), { seed: seed + i, numRuns: 1 })[0]!
          : BAD_VALUES[(random[i]! + i) % BAD_VALUES.length]!
        const request: Case = where === "path"
          ? { ...base, pathValues: { ...base.pathValues, [name]: bad } }
          : { ...base, query: { ...base.query, [name]: bad } }
        const { status } = await checkAnswer(operation, request)
        cases++
        const refused = !decodes(operation.pathSchema, request.pathValues) || !decodes(operation.urlParamsSchema, request.query)
        if (refused) expect([400, 404]).toContain(status)
        if (refused && where === "query") expect(status).toBe(400)
      }

      if (isStaff(operation)) {
        const request = valid[0]!
        expect((await checkAnswer(operation, { ...request, headers: {} })).status).toBe(401)
        expect((await checkAnswer(operation, { ...request, headers: { authorization: `Bearer ${fanToken}` } })).status).toBe(403)
        cases += 2
      }
    }, 60_000)
  })

  test("cases ran", () => {
    console.log(`contract: ${cases} cases over ${operations.length} operations`)
    expect(cases).toBeGreaterThan(operations.length * VALID_CASES)
  })
})

/** The query parameters the document lists for an operation, each "required" or "optional". */
function documentedQueryNames(operation: Operation): Record<string, "required" | "optional"> {
  const documented = documentedOf(operation) as unknown as { parameters?: Array<{ name: string; in: string; required: boolean }> }
  return Object.fromEntries(
    (documented.parameters ?? []).filter((p) => p.in === "query").map((p) => [p.name, p.required ? "required" as const : "optional" as const])
  )
}
