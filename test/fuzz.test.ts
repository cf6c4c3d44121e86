import * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fc from "fast-check"
import { Schema } from "effect"
import { Api } from "../src/Api.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { parameterNames, wireRecord } from "./support/samples.js"
import { propertySeeds } from "./support/propertySeeds.js"
import { hs256 } from "./support/tokens.js"
import { FIXTURE_PATH_VALUES } from "./support/fixture.js"

/**
 * A property-based fuzz of every endpoint of the HttpApi: values built from the endpoints' own
 * path and query Schemas, valid and mutated, plus hostile strings and forged cursors. Whatever
 * is sent: no 5xx, every error exactly the envelope with the code of its status, no hidden row
 * or private field in a 200. Seeded, so every run sends the same requests.
 */
const SEED = 20261123
const RUNS_PER_ENDPOINT = 40
const CONCURRENCY = 8

interface Target {
  readonly name: string
  readonly path: string
  readonly staff: boolean
  readonly pathSchema: Schema.Codec<any, any> | undefined
  readonly urlSchema: Schema.Codec<any, any> | undefined
  readonly urlKeys: ReadonlyArray<string>
}

const targets: Array<Target> = []
HttpApi.reflect(Api, {
  onGroup: () => undefined,
  onEndpoint: ({ endpoint, group }) => {
    const e = endpoint as HttpApiEndpoint.Top
    const urlSchema = e.query as Schema.Codec<any, any> | undefined
    targets.push({
      name: `${e.method} ${e.path}`,
      path: e.path,
      staff: group.identifier === "Staff",
      pathSchema: e.params as Schema.Codec<any, any> | undefined,
      urlSchema,
      urlKeys: urlSchema === undefined ? [] : parameterNames(urlSchema)
    })
  }
})

/** Percent-encodes any JS string; a lone surrogate goes as its three (invalid) UTF-8 bytes. */
const percentEncode = (text: string) => {
  let out = ""
  for (const char of text) {
    const unit = char.charCodeAt(0)
    out += char.length === 1 && unit >= 0xd800 && unit <= 0xdfff
      ? [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join("")
      : encodeURIComponent(char)
  }
  return out
}

/** A value as it goes on the wire: text to encode, or bytes already percent-encoded. */
type Wire = { readonly text: string } | { readonly raw: string }
const onWire = (value: Wire) => ("raw" in value ? value.raw : percentEncode(value.text))

const HOSTILE: ReadonlyArray<Wire> = [
  { raw: "%00" },
  { raw: "a%00b" },
  { raw: "%FF" },
  { raw: "ab%FFcd" },
  { raw: "%ED%A0%80" },
  { raw: "%C0%AF" },
  { raw: "%E0%A4%A" },
  { raw: "%" },
  { raw: "%zz" },
  { text: "\u0000" },
  { text: "\ud800" },
  { text: "x\udc00y" },
  { text: "\uFFFD" },
  { text: "a".repeat(10_000) },
  // 9.6 kB on the wire: Bun refuses a request line past 16 kB itself (an empty 431)
  { text: "é".repeat(1_600) },
  { text: "' OR 1=1 --" },
  { text: "'; DROP TABLE songs; --" },
  { text: "\\" },
  { text: "%_%" },
  { text: ".*" },
  { text: "(a+)+$" },
  { text: "[" },
  { text: "\u202e\u200b" },
  { text: "😀" },
  { text: " " },
  { text: "" },
  { text: "0" },
  { text: "-1" },
  { text: "01" },
  { text: "1e3" },
  { text: "0x10" },
  { text: "2147483647" },
  { text: "2147483648" },
  { text: "99999999999999999999999" },
  { text: "NaN" },
  { text: "null" },
  { text: "a,b" },
  { text: "1,,2" },
  { text: "../../etc/passwd" },
  { text: "canary_banned" },
  { text: "canary-hidden-artist" }
]

const recordArbitrary = (schema: Schema.Codec<any, any> | undefined): fc.Arbitrary<Record<string, Wire>> => {
  if (schema === undefined) return fc.constant({})
  return wireRecord(schema).map((record) =>
    Object.fromEntries(Object.entries(record).map(([key, text]) => [key, { text }])))
}

/** A string fast-check makes: any UTF-16 (lone surrogates included), or a run of hostile characters. */
const anyText: fc.Arbitrary<Wire> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }).map((text) => ({ text })),
  fc.constantFrom(...HOSTILE)
)

const urlOf = (target: Target, path: Record<string, Wire>, query: Record<string, Wire>) => {
  const filled = target.path.replace(/:(\w+)/g, (_, name: string) => onWire(path[name] ?? { text: "1" }))
  const search = Object.entries(query).map(([key, value]) => `${encodeURIComponent(key)}=${onWire(value)}`).join("&")
  return search === "" ? filled : `${filled}?${search}`
}

const CODE_OF_STATUS: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "bad_request",
  414: "bad_request",
  431: "bad_request",
  429: "rate_limited"
}

/** Keys no answer may carry, at any depth. */
const PRIVATE_KEYS = new Set(["email", "banned", "is_banned", "member_roles", "password"])

const privateKeysIn = (value: unknown, found: Array<string> = []): Array<string> => {
  if (Array.isArray(value)) for (const item of value) privateKeysIn(item, found)
  else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (PRIVATE_KEYS.has(key)) found.push(key)
      // a member's roles are strings ({member,admin}); an artist's credit roles are objects
      if (key === "roles" && Array.isArray(inner) && inner.some((role) => typeof role === "string")) found.push(key)
      privateKeysIn(inner, found)
    }
  }
  return found
}

let server: TestServer
let staffToken: string
const stats = { requests: 0, endpoints: new Set<string>(), failures: [] as Array<string>, failed: 0 }

/** One request and every check of the contract; a broken check is recorded, not thrown, so all are counted. */
const probe = async (target: Target, url: string, withToken: boolean): Promise<{ status: number; body: any }> => {
  stats.requests += 1
  stats.endpoints.add(target.name)
  const headers: Record<string, string> = withToken ? { authorization: `Bearer ${staffToken}` } : {}
  const fail = (why: string) => {
    stats.failed += 1
    stats.failures.push(`${why}: GET ${url.slice(0, 160)}${withToken ? " (staff token)" : ""}`)
  }
  let response: Response
  try {
    response = await fetch(server.baseUrl + url, { headers, redirect: "manual" })
  } catch (error) {
    fail(`no response (${String(error).slice(0, 80)})`)
    return { status: 0, body: undefined }
  }
  const text = await response.text()
  const status = response.status
  let body: any
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  if (status >= 500) fail(`${status} ${text.slice(0, 200)}`)
  else if (status === 200) {
    if (!withToken && /canary/i.test(text)) fail("a hidden row in a 200")
    if (text.includes("@mail.example")) fail("an email in a 200")
    const keys = privateKeysIn(body)
    if (keys.length > 0) fail(`private fields in a 200: ${keys.join(", ")}`)
  } else if (status !== 304 && !(status >= 200 && status < 300)) {
    const error = body?.error
    const exact = body !== undefined && Object.keys(body).join() === "error" && error !== undefined &&
      Object.keys(error).sort().join() === "code,message" && typeof error.message === "string"
    if (!exact) fail(`${status} without the exact envelope: ${text.slice(0, 200)}`)
    else if (CODE_OF_STATUS[status] !== error.code) fail(`${status} with code ${error.code}`)
    else if (error.message.length > 300) fail(`${status} message of ${error.message.length} characters`)
  }
  return { status, body }
}

/** Runs `jobs` CONCURRENCY at a time. */
const inParallel = async (jobs: ReadonlyArray<() => Promise<unknown>>) => {
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < jobs.length) await jobs[next++]!()
  }))
}

const tokenModes = (target: Target) => (target.staff ? [true, false] : [false])

beforeAll(async () => {
  server = await sharedServer()
  staffToken = await hs256()
}, 60_000)

afterAll(() => {
  console.log(
    `fuzz: ${stats.requests} requests over ${stats.endpoints.size} endpoints, ${stats.failed} failures`
  )
})

const expectNoFailures = () => {
  const failures = stats.failures.splice(0)
  expect(failures.slice(0, 20)).toEqual([])
}

describe("fuzz: every endpoint of the HttpApi", () => {
  test("the API has endpoints with path and query Schemas to fuzz", () => {
    expect(targets.length).toBeGreaterThan(25)
    expect(targets.filter((target) => target.urlKeys.includes("cursor")).length).toBeGreaterThanOrEqual(12)
  })

  for (const run of propertySeeds(SEED)) test(`values from the endpoints' own Schemas, valid and mutated (${run.label})`, async () => {
    const jobs: Array<() => Promise<unknown>> = []
    for (const target of targets) {
      const pathKeys = (target.path.match(/:(\w+)/g) ?? []).map((name) => name.slice(1))
      const mutation = fc.option(fc.tuple(fc.constantFrom(...pathKeys, ...target.urlKeys, "unknown"), anyText), {
        freq: 2
      })
      const cases = fc.sample(
        fc.tuple(recordArbitrary(target.pathSchema), recordArbitrary(target.urlSchema), mutation, fc.boolean()),
        { seed: run.seed, numRuns: RUNS_PER_ENDPOINT }
      )
      for (const [path, query, change, withToken] of cases) {
        const [key, value] = change ?? ["", undefined]
        const mutated = value === undefined
          ? { path, query }
          : pathKeys.includes(key)
          ? { path: { ...path, [key]: value }, query }
          : { path, query: { ...query, [key]: value } }
        jobs.push(() => probe(target, urlOf(target, mutated.path, mutated.query), target.staff && withToken))
      }
    }
    await inParallel(jobs)
    expectNoFailures()
  }, 60_000)

  test("hostile strings in every path segment and query parameter", async () => {
    const jobs: Array<() => Promise<unknown>> = []
    for (const target of targets) {
      const pathKeys = (target.path.match(/:(\w+)/g) ?? []).map((name) => name.slice(1))
      for (const withToken of tokenModes(target)) {
        for (const value of HOSTILE) {
          for (const key of pathKeys) {
            jobs.push(() => probe(target, urlOf(target, { [key]: value }, {}), withToken))
          }
          for (const key of target.urlKeys) {
            const base: Record<string, Wire> = target.path.includes("/search") ? { q: { text: "lagu" } } : {}
            jobs.push(() => probe(target, urlOf(target, {}, { ...base, [key]: value }), withToken))
          }
        }
      }
    }
    await inParallel(jobs)
    expectNoFailures()
  }, 120_000)

  test("NUL and invalid UTF-8 in a text parameter are a bad_request naming it", async () => {
    const cases: Array<[string, string]> = []
    for (const bad of ["a%00b", "%FF", "%ED%A0%80", "%C0%AF"]) {
      cases.push(["q", `/v1/search?q=${bad}`], ["q", `/v1/artists?q=${bad}`], ["q", `/v1/labels?q=${bad}`])
      cases.push(["q", `/v1/users?q=${bad}`], ["q", `/v1/admin/songs?q=${bad}`], ["cursor", `/v1/songs?cursor=${bad}`])
    }
    cases.push(["slug", "/v1/genres/a%00b"], ["slug", "/v1/genres/a%00b/songs"], ["username", "/v1/users/a%00b/loves"])
    cases.push(["username", "/v1/users/%00/contributions"])
    const target = targets[0]!
    for (const [name, url] of cases) {
      const reply = await probe(target, url, url.startsWith("/v1/admin"))
      expect({ url, status: reply.status, code: reply.body?.error?.code }).toEqual({ url, status: 400, code: "bad_request" })
      expect(reply.body.error.message).toContain(name)
    }
    expectNoFailures()
  })

  for (const run of propertySeeds(SEED)) test(`lookups by external id: ids of their form find public songs only, anything else is a bad_request naming the parameter (${run.label})`, async () => {
    const NAMES = ["vidsvc_id", "streama_id", "streamb_id"]
    const FORM = /^[A-Za-z0-9_-]{1,64}$/
    // hidden songs (unpublished, deleted, scheduled) carrying ids of each kind
    const hidden = [10, 11, 12].map((id) => `canary-${id}`)
    await server.sql(`UPDATE songs SET vidsvc_video_id = 'canary-' || id, streama_id = 'canary-' || id, streamb_id = 'canary-' || id
                      WHERE id IN (10, 11, 12)`)
    try {
      const item = fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9_-]{1,70}$/),
        fc.constantFrom(...hidden, "dQw4w9WgXcQ", "abcdefghijk", "sa1", "sb1", ""),
        fc.string({ unit: "binary", maxLength: 12 })
      )
      // a public song's id of each kind first (the i-th request asks NAMES[i % 3]), so that every
      // seed's run finds something, then the drawn ones
      const values = [["dQw4w9WgXcQ"], ["sa1"], ["sb1"], ...fc.sample(fc.array(item, { minLength: 1, maxLength: 55 }), { seed: run.seed, numRuns: 120 })]
      const target = targets.find((t) => t.name === "GET /v1/songs")!
      let found = 0
      await inParallel(values.flatMap((items, i) => {
        const name = NAMES[i % NAMES.length]!
        const text = items.join(",")
        const distinct = new Set(items)
        const wellFormed = items.every((one) => FORM.test(one)) && distinct.size <= 50
        return [async () => {
          const reply = await probe(target, `/v1/songs?${name}=${percentEncode(text)}`, false)
          const expected = wellFormed ? 200 : 400
          expect({ text: text.slice(0, 80), status: reply.status }).toEqual({ text: text.slice(0, 80), status: expected })
          if (expected === 400) expect(reply.body.error.message).toContain(name)
          else found += reply.body.data.length
        }]
      }))
      expect(found).toBeGreaterThan(0)
    } finally {
      await server.sql("UPDATE songs SET vidsvc_video_id = NULL, streama_id = NULL, streamb_id = NULL WHERE id IN (10, 11, 12)")
    }
    expectNoFailures()
  }, 60_000)

  test("forged cursors for every list are a bad_request with one message", async () => {
    const SORTS = ["", "sort=popular", "sort=title", "sort=name", "sort=songs", "sort=total_songs", "sort=joined", "order=asc"]
    const lists = targets.filter((target) => target.urlKeys.includes("cursor"))
    const messages = new Set<string>()
    let forged = 0
    let listsWithCursor = 0
    const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url")
    for (const target of lists) {
      const base = target.path.replace(/:(\w+)/g, (_, name: string) => FIXTURE_PATH_VALUES[name] ?? "1")
      let found = false
      for (const sort of SORTS) {
        const first = await probe(target, `${base}?limit=1${sort === "" ? "" : `&${sort}`}`, target.staff)
        const cursor = first.body?.meta?.next_cursor
        if (first.status !== 200 || typeof cursor !== "string" || cursor === "") continue
        found = true
        const payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
        const next = await probe(target, `${base}?limit=1&cursor=${cursor}${sort === "" ? "" : `&${sort}`}`, target.staff)
        expect({ url: base, status: next.status }).toEqual({ url: base, status: 200 })
        const badFor = (value: unknown, tie: boolean): Array<unknown> => {
          const always = [null, true, [], {}, "a\u0000b", "\ud800", 1.5, 1e308, 2 ** 53]
          if (typeof value === "number") return [...always, "1", ...(tie ? [0, -1, 2147483648] : [])]
          if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
            return [...always, 20230101, "2023-02-30", "2023-02-29", "0000-01-01", "2023-13-01", "2023-1-01", "99999-01-01"]
          }
          if (typeof value === "string" && value.includes("T")) {
            return [...always, "2023-02-30T00:00:00.000000Z", "2023-01-01T24:00:00.000000Z", "0000-01-01T00:00:00.000000Z",
              "2023-01-01T00:00:00Z", "2023-01-01"]
          }
          return [...always, 5, "x".repeat(1001)]
        }
        const variants: Array<unknown> = [
          ...badFor(payload.k[0], false).map((bad) => ({ ...payload, k: [bad, payload.k[1]] })),
          ...badFor(payload.k[1], true).map((bad) => ({ ...payload, k: [payload.k[0], bad] })),
          { ...payload, s: `${payload.s}x` },
          { ...payload, o: -1 },
          { ...payload, o: 1.5 },
          { ...payload, o: 2 ** 31 },
          { ...payload, k: [payload.k[0]] },
          { ...payload, k: [...payload.k, 1] },
          { s: payload.s, o: payload.o },
          [payload.s, payload.o, payload.k],
          "not json"
        ]
        const raws = [...variants.map(b64), "!!", "a".repeat(3000), "%FF", `${cursor}%00`]
        await inParallel(raws.map((raw) => async () => {
          forged += 1
          const reply = await probe(target, `${base}?limit=1&cursor=${raw}${sort === "" ? "" : `&${sort}`}`, target.staff)
          expect({ url: base, cursor: raw.slice(0, 60), status: reply.status }).toEqual({
            url: base,
            cursor: raw.slice(0, 60),
            status: 400
          })
          if (typeof reply.body?.error?.message === "string") messages.add(reply.body.error.message)
        }))
      }
      if (found) listsWithCursor += 1
    }
    console.log(`fuzz: ${forged} forged cursors over ${listsWithCursor} of ${lists.length} lists, all bad_request`)
    expect(listsWithCursor).toBeGreaterThanOrEqual(10)
    expect([...messages].filter((message) => message.startsWith("cursor")).length).toBe(1)
    expectNoFailures()
  }, 60_000)
})

describe("fuzz: If-None-Match and cache-busting spellings on a caching edge", () => {
  // Cache on, and a bucket that cannot refill during the test: every token counts.
  let edge: TestServer
  beforeAll(async () => {
    edge = await startEdgeServer({
      ...REAL_EDGE_ENV,
      TRUST_PROXY: "1",
      RATE_LIMIT_CAPACITY: "100000",
      RATE_LIMIT_WINDOW_SECONDS: "1000000000"
    })
  }, 60_000)
  afterAll(() => edge.stop())

  /** Escapes a letter or digit of `text` where `pick` says so: the same text to the router, another spelling. */
  const respell = (text: string, pick: ReadonlyArray<boolean>) =>
    [...text].map((char, i) =>
      /^[A-Za-z0-9]$/.test(char) && pick[i % pick.length] ? `%${char.charCodeAt(0).toString(16).toUpperCase()}` : percentEncode(char)
    ).join("")

  const conditionArb = fc.constantFrom("none", "*", "etag", "weak", "stale", "list", "weak-stale")
  const conditionOf = (kind: string, etag: string): string | undefined => {
    switch (kind) {
      case "*":
        return "*"
      case "etag":
        return etag
      case "weak":
        return `W/${etag}`
      case "stale":
        return `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"`
      case "list":
        return `"stale-1", W/"stale-2", ${etag}`
      case "weak-stale":
        return `W/"stale"`
      default:
        return undefined
    }
  }

  for (const run of propertySeeds(SEED)) test(`any spelling of a request gets the answer of its meaning, and a token unless the cache answered a validator the client named (${run.label})`, async () => {
    const variantArb = fc.record({
      condition: conditionArb,
      unknown: fc.array(fc.tuple(fc.constantFrom("bust", "_", "utm_source", "x", "cb"), fc.string({ maxLength: 8 })), { maxLength: 3 }),
      escapes: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      reversed: fc.boolean()
    })
    const failures: Array<string> = []
    let checked = 0
    const publicTargets = targets.filter((target) => !target.staff && !target.path.startsWith("/v1/health"))
    for (const [index, target] of publicTargets.entries()) {
      // each run its own clients (documentation ranges), so that one run's buckets do not carry into the other's
      const client = `${run.drawn ? "198.51.100" : "203.0.113"}.${index + 1}`
      const [path, query] = fc.sample(fc.tuple(recordArbitrary(target.pathSchema), recordArbitrary(target.urlSchema)), {
        seed: run.seed + index,
        numRuns: 1
      })[0]!
      const send = (url: string, condition: string | undefined) =>
        fetch(edge.baseUrl + url, {
          headers: { "x-forwarded-for": client, ...(condition === undefined ? {} : { "if-none-match": condition }) }
        }).then(async (response) => ({ status: response.status, headers: response.headers, text: await response.text() }))
      const plainUrl = urlOf(target, path, query)
      const base = await send(plainUrl, undefined)
      const etag = base.headers.get("etag") ?? ""
      let tokens = Number(base.headers.get("x-ratelimit-remaining"))
      const filled = plainUrl.split("?")[0]!
      for (const variant of fc.sample(variantArb, { seed: run.seed + index, numRuns: 8 })) {
        const known = Object.entries(query).map(([key, value]: [string, Wire]) => `${respell(key, variant.escapes)}=${("raw" in value ? value.raw : respell(value.text, variant.escapes))}`)
        const pairs = [...(variant.reversed ? known.reverse() : known), ...variant.unknown.map(([key, value]) => `${key}=${encodeURIComponent(value)}`)]
        const url = pairs.length === 0 ? filled : `${filled}?${pairs.join("&")}`
        const condition = conditionOf(variant.condition, etag)
        const reply = await send(url, condition)
        checked += 1
        // a feed page the cache did not keep, read anew at the head, ends in a cursor of the time it
        // was read (docs/changes.md): a later read is another answer, with the same entries
        const readAnew = target.path === "/v1/changes" && reply.headers.get("x-cache") !== "hit" && reply.headers.get("etag") !== etag
        const matches = base.status === 200 && condition !== undefined &&
          (condition === "*" || (condition.includes(etag) && !readAnew))
        const expected = base.status !== 200 ? base.status : matches ? 304 : 200
        const free = reply.status === 304 && reply.headers.get("x-cache") === "hit" && condition !== "*"
        const left = Number(reply.headers.get("x-ratelimit-remaining"))
        const why = `${target.name}: GET ${url.slice(0, 120)} If-None-Match: ${condition ?? "-"}`
        const entries = (text: string) => readAnew ? JSON.stringify((JSON.parse(text) as { data: unknown }).data) : text
        if (reply.status !== expected) failures.push(`${why}: ${reply.status}, expected ${expected}`)
        else if (reply.status === 200 && entries(reply.text) !== entries(base.text)) failures.push(`${why}: another body`)
        else if (reply.status === 304 && (reply.text !== "" || (reply.headers.get("etag") !== etag && !readAnew))) failures.push(`${why}: a 304 with a body or another ETag`)
        if (left !== (free ? tokens : tokens - 1)) failures.push(`${why}: ${tokens} -> ${left} tokens (${free ? "free" : "paid"})`)
        tokens = left
      }
    }
    console.log(`fuzz: ${checked} spellings with If-None-Match over ${publicTargets.length} public endpoints`)
    expect(failures.slice(0, 20)).toEqual([])
  }, 120_000)
})
