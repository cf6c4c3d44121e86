import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { onPostgres } from "./support/database.js"
import { describeWhen, ON_POSTGRES_ONLY, testWhen } from "./support/skips.js"
import { spawnSync } from "node:child_process"
import { RENDER_INTERVAL_MS } from "../src/Http/MetricsListener.js"
import { ANSWERED_STATUSES, KNOWN_METHODS, REQUEST_DURATION_SERIES_BOUND } from "../src/Http/RequestMetrics.js"
import { routes } from "../src/Http/Routes.js"
import { DURATION_BUCKETS } from "../src/Metrics.js"
import { spawnService, type ServiceProcess } from "./support/child.js"
import { databaseEnv, type TestDatabase } from "./support/database.js"
import { migratedDatabase } from "./support/template.js"
import { request } from "./support/http.js"
import { type FaultProxy, startFaultProxy } from "./support/proxy.js"
import { rawExchange, type RawReply } from "./support/raw.js"

// --- Prometheus text, read back

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const samplesOf = (text: string): Array<Sample> =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) throw new Error(`not a sample line: ${line}`)
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]))
    return { name: match[1]!, labels, value: Number(match[3]) }
  })

/** The value of the one sample named `name` whose labels include `labels` (undefined when there is none). */
const valueOf = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) => {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}

const sumOf = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0)

const durationSeries = (samples: ReadonlyArray<Sample>) => samples.filter((s) => s.name === "http_server_request_duration_seconds_count")

// --- one request exactly as written, from a chosen client (TRUST_PROXY=1 reads it from X-Forwarded-For)

const raw = (baseUrl: string, method: string, target: string, headers: Record<string, string> = {}): Promise<RawReply> =>
  rawExchange(
    baseUrl,
    `${method} ${target} HTTP/1.1\r\nHost: ${new URL(baseUrl).host}\r\nConnection: close\r\n` +
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "\r\n"
  )

/** Runs `tasks` with at most `width` at a time. */
const inParallel = async <A>(tasks: ReadonlyArray<() => Promise<A>>, width = 8): Promise<Array<A>> => {
  const results: Array<A> = new Array(tasks.length)
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const at = next++
      results[at] = await tasks[at]!()
    }
  }))
  return results
}

/**
 * Methods no route of this read-only API takes, each one Bun's parser lets through (it closes the
 * connection on tokens it does not know, before the service sees them): 26 beyond HTTP's own
 * nine, and four of those.
 */
const UNUSUAL_METHODS = [
  "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "SEARCH", "REPORT", "MKACTIVITY",
  "CHECKOUT", "MERGE", "M-SEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "PURGE", "LINK", "UNLINK", "BIND",
  "REBIND", "UNBIND", "ACL", "MKCALENDAR", "QUERY", "SOURCE", "POST", "PUT", "PATCH", "DELETE"
]

/** A path of every route (parameters as `1`), and paths of none. */
const EVERY_ROUTE = routes.map((route) => route.template.replace(/:[a-zA-Z]+/g, "1"))
const UNKNOWN_PATHS = Array.from({ length: 20 }, (_, i) => `/v1/nothing-${i}/${"x".repeat(i)}`)

const metricsPortOf = async (service: ServiceProcess) => {
  const line = await service.waitForLine(/Serving metrics on http:\/\/[^:\s"]+:\d+\/metrics/)
  return Number(/Serving metrics on http:\/\/[^:\s"]+:(\d+)\/metrics/.exec(line)![1])
}

const scrape = async (metricsUrl: string) => {
  const response = await fetch(`${metricsUrl}/metrics`)
  expect(response.status).toBe(200)
  return response.text()
}

/** A scrape sure to be rendered after everything before it: past the render interval of the last one. */
const freshScrape = async (metricsUrl: string) => {
  await Bun.sleep(RENDER_INTERVAL_MS + 50)
  return samplesOf(await scrape(metricsUrl))
}

// --- the service under test: Prometheus export on its own port, the database behind a proxy a test can freeze

const POOL_SIZE = 3
let database: TestDatabase
let proxy: FaultProxy | undefined
let service: ServiceProcess
let baseUrl: string
let metricsUrl: string

beforeAll(async () => {
  database = await migratedDatabase()
  proxy = database.kind === "postgres" ? await startFaultProxy(database.url) : undefined
  service = spawnService({
    ...databaseEnv(database),
    ...(proxy === undefined ? {} : { DATABASE_URL: proxy.url }),
    METRICS: "prometheus",
    METRICS_PORT: "0",
    MEMORY_LIMIT_MIB: "0",
    TRUST_PROXY: "1",
    RATE_LIMIT_CAPACITY: "600",
    // tokens come back so slowly that a client past its limit stays past it for the whole file
    RATE_LIMIT_WINDOW_SECONDS: "1000000",
    CACHE_TTL_SECONDS: "30",
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    DATABASE_STATEMENT_TIMEOUT_MS: "1000",
    // a request the frozen database holds is answered 503 after 3 s or more: long enough to be seen in flight
    DATABASE_DEADLINE_MARGIN_MS: "3000",
    DATABASE_ACQUIRE_TIMEOUT_MS: "3000",
    LOG_LEVEL: "info"
  })
  baseUrl = await service.baseUrl()
  metricsUrl = `http://127.0.0.1:${await metricsPortOf(service)}`
}, 90_000)

afterAll(async () => {
  proxy?.resume()
  service?.process.kill()
  await service?.exited
  proxy?.stop()
  await database?.drop()
})

const from = (client: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": client, ...headers } })

describe("the public port", () => {
  test("/metrics is an ordinary unknown path there, however it is spelled", async () => {
    const host = new URL(baseUrl).host
    const spellings: Array<[string, string]> = [
      ["GET", "/metrics"],
      ["GET", "//metrics"],
      ["GET", "/metrics/"],
      ["GET", "/METRICS"],
      ["GET", "/Metrics"],
      ["GET", "/metrics?format=prometheus"],
      ["GET", "/%6Detrics"],
      ["GET", "/./metrics"],
      ["GET", "/v1/../metrics"],
      ["GET", `http://${host}/metrics`],
      ["GET", "http://metrics.internal/metrics"],
      ["POST", "/metrics"],
      ["OPTIONS", "/metrics"]
    ]
    for (const [method, target] of spellings) {
      const reply = await raw(baseUrl, method, target, { "x-forwarded-for": "10.9.0.1" })
      expect({ method, target, status: reply.status }).toEqual({ method, target, status: 404 })
      expect({ method, target, code: JSON.parse(reply.body).error.code }).toEqual({ method, target, code: "not_found" })
      expect(reply.raw).not.toContain("# TYPE")
    }
    const head = await raw(baseUrl, "HEAD", "/metrics")
    expect([head.status, head.body]).toEqual([404, ""])
    expect(head.headers.get("content-type")).toStartWith("application/json")
  })
})

describe("the metrics port", () => {
  test("serves the Prometheus text with the conventions' names, units and labels", async () => {
    const client = from("10.1.0.1")
    await request(baseUrl, "/v1/genres", client) // a miss
    await request(baseUrl, "/v1/genres", client) // a hit
    await request(baseUrl, "/v1/songs/999999", client) // a 404 by route
    await request(baseUrl, "/v1/genres", from("10.1.0.1", { "x-forwarded-proto": "https" })) // through a TLS proxy
    await request(baseUrl, "/v1/stats", { ...client, method: "OPTIONS" })
    await request(baseUrl, "/v1/songs", { ...client, method: "HEAD" })
    await raw(baseUrl, "PROPFIND", "/v1/songs", { "x-forwarded-for": "10.1.0.1" })

    await Bun.sleep(RENDER_INTERVAL_MS + 50)
    const response = await fetch(`${metricsUrl}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    const text = await response.text()
    const samples = samplesOf(text)

    const types: Array<[string, string]> = [
      ["http_server_request_duration_seconds", "histogram"],
      ["http_server_active_requests", "gauge"],
      ["db_client_connection_count", "gauge"],
      ["db_client_connection_max", "gauge"],
      ["db_client_connection_wait_time_seconds", "histogram"],
      ["process_memory_usage_bytes", "gauge"],
      ["catalogue_js_heap_used_bytes", "gauge"],
      ["catalogue_memory_limit_bytes", "gauge"],
      ["catalogue_memory_forced_collections_total", "counter"],
      ["catalogue_cache_entries", "gauge"],
      ["catalogue_cache_size_bytes", "gauge"],
      ["catalogue_cache_requests_total", "counter"],
      ["catalogue_rate_limit_refusals_total", "counter"],
      ["catalogue_rate_limit_redis_fallback", "gauge"],
      ["catalogue_database_unavailable_total", "counter"],
      ["catalogue_build_info", "gauge"]
    ]
    for (const [name, type] of types) expect(text).toMatch(new RegExp(`^# TYPE ${name} ${type}$`, "m"))
    // no family outside the table (the exporters' drop counter appears once they drop), and no unit label: the unit is in the name
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!)
    expect(families.filter((name) => !types.some(([known]) => known === name) && name !== "catalogue_telemetry_dropped_total")).toEqual([])
    expect(samples.filter((s) => "unit" in s.labels)).toEqual([])

    const duration = (labels: Record<string, string>) => valueOf(samples, "http_server_request_duration_seconds_count", labels)
    const get = { http_request_method: "GET", url_scheme: "http" }
    expect(duration({ ...get, http_route: "/v1/genres", http_response_status_code: "200" })).toBe(2)
    expect(duration({ ...get, url_scheme: "https", http_route: "/v1/genres", http_response_status_code: "200" })).toBe(1)
    expect(duration({ ...get, http_route: "/v1/songs/:songId", http_response_status_code: "404" })).toBe(1)
    expect(duration({ http_request_method: "OPTIONS", http_route: "/v1/stats", http_response_status_code: "204" })).toBe(1)
    expect(duration({ http_request_method: "HEAD", http_route: "/v1/songs", http_response_status_code: "200" })).toBe(1)
    expect(duration({ http_request_method: "_OTHER", http_route: "/v1/songs", http_response_status_code: "405" })).toBe(1)
    // error.type only on 5xx
    expect(samples.filter((s) => s.name === "http_server_request_duration_seconds_count" && "error_type" in s.labels)).toEqual([])
    // the buckets of the table, fine below 5 ms
    const buckets = samples.filter((s) =>
      s.name === "http_server_request_duration_seconds_bucket" && s.labels.http_route === "/v1/genres" && s.labels.url_scheme === "http"
    ).map((s) => s.labels.le)
    expect(buckets).toEqual([...DURATION_BUCKETS.map(String), "+Inf"])

    expect(valueOf(samples, "http_server_active_requests", get)).toBe(0)
    // hits: the second GET and the one through the TLS proxy; misses: the first GET and the HEAD
    expect(valueOf(samples, "catalogue_cache_requests_total", { cache_result: "hit" })).toBe(2)
    expect(valueOf(samples, "catalogue_cache_requests_total", { cache_result: "miss" })).toBe(2)
    expect(valueOf(samples, "catalogue_cache_entries")).toBeGreaterThanOrEqual(1)
    expect(valueOf(samples, "catalogue_cache_size_bytes")).toBeGreaterThan(0)
    expect(valueOf(samples, "catalogue_rate_limit_redis_fallback")).toBe(0)
    expect(valueOf(samples, "catalogue_memory_limit_bytes")).toBe(0)
    expect(valueOf(samples, "process_memory_usage_bytes")).toBeGreaterThan(10 * 1024 * 1024)
    expect(valueOf(samples, "catalogue_js_heap_used_bytes")).toBeGreaterThan(1024 * 1024)
    expect(samples.find((s) => s.name === "catalogue_build_info")?.labels).toEqual({ service_version: "1.0.0", service_name: "catalogue-api" })

    const pool = database.kind === "postgres" ? `127.0.0.1:${proxy!.port}${new URL(database.url).pathname}` : "embedded"
    const max = database.kind === "postgres" ? POOL_SIZE : 1
    expect(valueOf(samples, "db_client_connection_max", { db_client_connection_pool_name: pool })).toBe(max)
    const idle = valueOf(samples, "db_client_connection_count", { db_client_connection_pool_name: pool, db_client_connection_state: "idle" })!
    const used = valueOf(samples, "db_client_connection_count", { db_client_connection_pool_name: pool, db_client_connection_state: "used" })!
    expect(idle + used).toBeGreaterThanOrEqual(1)
    expect(idle + used).toBeLessThanOrEqual(max)
    expect(valueOf(samples, "db_client_connection_wait_time_seconds_count", { db_client_connection_pool_name: pool })).toBeGreaterThanOrEqual(1)
    // a primary has no replay lag to give
    expect(text).not.toContain("catalogue_database_replay_lag")
  })

  test("a second scrape within a second is the same text, not a new render; after the second, a new one", async () => {
    await Bun.sleep(RENDER_INTERVAL_MS + 50)
    for (let attempt = 0; ; attempt++) {
      const startedAt = performance.now()
      const first = await scrape(metricsUrl)
      // a request in between: a render would count it
      await request(baseUrl, "/v1/stats", from("10.2.0.1"))
      const second = await scrape(metricsUrl)
      // on a machine too loaded to do it within the second, again
      if (performance.now() - startedAt >= RENDER_INTERVAL_MS - 100 && attempt < 3) continue
      expect(second).toBe(first)
      break
    }
    const later = samplesOf((await Bun.sleep(RENDER_INTERVAL_MS + 50), await scrape(metricsUrl)))
    expect(valueOf(later, "http_server_request_duration_seconds_count", { http_route: "/v1/stats", http_response_status_code: "200" }))
      .toBeGreaterThanOrEqual(1)
  })

  test("HEAD answers without a body; another path or method of the metrics port answers 404 or 405 in the error envelope", async () => {
    const head = await fetch(`${metricsUrl}/metrics`, { method: "HEAD" })
    expect([head.status, await head.text()]).toEqual([200, ""])
    expect((await fetch(`${metricsUrl}/`)).status).toBe(404)
    expect((await fetch(`${metricsUrl}/v1/songs`)).status).toBe(404)
    const post = await fetch(`${metricsUrl}/metrics`, { method: "POST" })
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"])
    // refusals in the service's envelope, as on the public port
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe("bad_request")
    expect(((await (await fetch(`${metricsUrl}/v1/songs`)).json()) as { error: { code: string } }).error.code).toBe("not_found")
  })

  testWhen(spawnSync("sh", ["-c", "command -v promtool"]).status === 0, "promtool is not installed")("promtool check metrics accepts the text", async () => {
    const text = await scrape(metricsUrl)
    const checked = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" })
    // its one lint is OpenTelemetry's own name: db.client.connection.count is a gauge named `_count`
    const problems = `${checked.stdout}${checked.stderr}`.split("\n").filter((line) => line.trim() !== "")
    expect(problems).toEqual(problems.length === 0 ? [] : ['db_client_connection_count non-histogram and non-summary metrics should not have "_count" suffix'])
  })
})

describe("a closed set of series", () => {
  test("every status the OpenAPI document says the service answers has its own series", async () => {
    const document = (await request(baseUrl, "/v1/openapi.json", from("10.5.0.1"))).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    const documented = new Set(Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).flatMap((operation) => Object.keys(operation.responses).map(Number))
    ))
    expect(documented.size).toBeGreaterThan(5)
    expect([...documented].filter((status) => !(ANSWERED_STATUSES as ReadonlyArray<number>).includes(status))).toEqual([])
  })

  test("30 unusual methods on every route and unknown paths, past the rate limit, add no series beyond the closed set", async () => {
    const flood = (client: string, methods: ReadonlyArray<string>) =>
      inParallel(methods.flatMap((method) =>
        [...EVERY_ROUTE, ...UNKNOWN_PATHS].map((path) => () => raw(baseUrl, method, path, { "x-forwarded-for": client }))
      ))
    // 30 x 58 requests from one client: its 600 tokens, then 429s, the shape that filled the former 2,000-series cap
    const replies = await flood("10.3.0.1", UNUSUAL_METHODS)
    const statuses = new Set(replies.map((reply) => reply.status))
    expect([...statuses].sort()).toEqual([404, 405, 429])
    const afterFirst = await freshScrape(metricsUrl)

    const series = durationSeries(afterFirst)
    expect(series.length).toBeLessThanOrEqual(REQUEST_DURATION_SERIES_BOUND)
    // every method outside HTTP's nine is one: _OTHER
    const methods = new Set(series.map((s) => s.labels.http_request_method))
    expect([...methods].filter((method) => ![...KNOWN_METHODS, "_OTHER"].includes(method!))).toEqual([])
    expect([...new Set(series.map((s) => s.labels.http_route))].filter((route) => route !== "" && !routes.some((r) => r.template === route)))
      .toEqual([])
    expect([...new Set(series.map((s) => Number(s.labels.http_response_status_code)))].filter((status) =>
      !(ANSWERED_STATUSES as ReadonlyArray<number>).includes(status)
    )).toEqual([])
    const flooded = series.filter((s) => s.labels.http_request_method === "_OTHER")
    // _OTHER x (every route and "") x {404, 405, 429}, at most
    expect(flooded.length).toBeLessThanOrEqual((EVERY_ROUTE.length + 1) * 3)

    // the same flood from a client with all its tokens: not one series more
    const before = new Set(series.map((s) => JSON.stringify(s.labels)))
    await flood("10.3.0.2", UNUSUAL_METHODS)
    const afterSecond = await freshScrape(metricsUrl)
    const added = durationSeries(afterSecond).map((s) => JSON.stringify(s.labels)).filter((key) => !before.has(key))
    expect(added).toEqual([])
    expect(sumOf(afterSecond, "http_server_request_duration_seconds_count", { http_request_method: "_OTHER" }))
      .toBe(sumOf(afterFirst, "http_server_request_duration_seconds_count", { http_request_method: "_OTHER" }) + replies.length - 4 * (EVERY_ROUTE.length + UNKNOWN_PATHS.length))
    // the refusal counter counts every 429
    expect(valueOf(afterSecond, "catalogue_rate_limit_refusals_total"))
      .toBe(sumOf(afterSecond, "http_server_request_duration_seconds_count", { http_response_status_code: "429" }))
    const text = await scrape(metricsUrl)
    console.log(`metrics: the floods left ${flooded.length} series of _OTHER, ${series.length} in all; the scrape is ${text.length} bytes`)
  }, 60_000)

  testWhen(onPostgres, ON_POSTGRES_ONLY)(
    "after the flood, a request in flight, a 503 with the database away and a 429 are all counted",
    async () => {
      const before = await freshScrape(metricsUrl)
      const get = { http_request_method: "GET", url_scheme: "http" }
      const unavailable = { ...get, http_route: "/v1/songs", http_response_status_code: "503", error_type: "503" }
      expect(valueOf(before, "http_server_request_duration_seconds_count", unavailable)).toBeUndefined()
      proxy!.pause()
      let answered: Promise<Awaited<ReturnType<typeof request>>>
      try {
        // a meaning no earlier request had: not in the response cache
        answered = request(baseUrl, "/v1/songs?limit=7", from("10.4.0.1"))
        const during = await freshScrape(metricsUrl)
        expect(valueOf(during, "http_server_active_requests", get)).toBe(1)
        expect(sumOf(during, "db_client_connection_count", { db_client_connection_state: "used" })).toBeGreaterThanOrEqual(1)
        expect((await answered).status).toBe(503)
      } finally {
        proxy!.resume()
      }
      // the flooding client is still past its limit
      expect((await request(baseUrl, "/v1/genres", from("10.3.0.1"))).status).toBe(429)

      const after = await freshScrape(metricsUrl)
      expect(valueOf(after, "http_server_request_duration_seconds_count", unavailable)).toBe(1)
      expect(valueOf(after, "catalogue_database_unavailable_total")).toBe(valueOf(before, "catalogue_database_unavailable_total")! + 1)
      expect(valueOf(after, "http_server_request_duration_seconds_count", { ...get, http_route: "/v1/genres", http_response_status_code: "429" }))
        .toBe((valueOf(before, "http_server_request_duration_seconds_count", { ...get, http_route: "/v1/genres", http_response_status_code: "429" }) ?? 0) + 1)
      expect(valueOf(after, "catalogue_rate_limit_refusals_total")).toBe(valueOf(before, "catalogue_rate_limit_refusals_total")! + 1)
      expect(valueOf(after, "http_server_active_requests", get)).toBe(0)
    },
    30_000
  )
})

// --- the Redis fallback gauge, with Redis behind a proxy a test can take away

describeWhen(onPostgres && process.env.RATE_LIMIT_REDIS_TEST_URL !== undefined, "needs a PostgreSQL server and a Redis (TEST_DATABASE_URL, RATE_LIMIT_REDIS_TEST_URL)")("the rate limit's Redis", () => {
  let redisProxy: FaultProxy
  let limited: ServiceProcess
  let limitedUrl: string
  let limitedMetricsUrl: string

  beforeAll(async () => {
    redisProxy = await startFaultProxy(process.env.RATE_LIMIT_REDIS_TEST_URL!)
    // the first service's database, migrated already
    limited = spawnService({
      DATABASE_URL: database.kind === "postgres" ? database.url : "",
      RATE_LIMIT_REDIS_URL: redisProxy.url,
      METRICS: "prometheus",
      METRICS_PORT: "0",
      TRUST_PROXY: "1"
    })
    limitedUrl = await limited.baseUrl()
    limitedMetricsUrl = `http://127.0.0.1:${await metricsPortOf(limited)}`
  }, 60_000)

  afterAll(async () => {
    limited?.process.kill()
    await limited?.exited
    redisProxy?.stop()
  })

  const fallback = async () => valueOf(await freshScrape(limitedMetricsUrl), "catalogue_rate_limit_redis_fallback")
  const ask = () => request(limitedUrl, "/v1/genres", from(`10.77.${process.pid % 250}.1`))

  test("catalogue.rate_limit.redis_fallback is 1 while Redis does not answer, 0 once it does again", async () => {
    expect((await ask()).status).toBe(200)
    expect(await fallback()).toBe(0)
    redisProxy.drop()
    try {
      expect((await ask()).status).toBe(200)
      expect(await fallback()).toBe(1)
    } finally {
      redisProxy.resume()
    }
    // the client reconnects on its own schedule: the first request it answers ends the fallback
    for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
      await ask()
      if (await fallback() === 0) break
    }
    expect(await fallback()).toBe(0)
  }, 45_000)
})

describe("METRICS_PORT", () => {
  test("the same port as PORT stops the start with one line naming METRICS_PORT", async () => {
    const refused = spawnService({ METRICS: "prometheus", PORT: "42950", METRICS_PORT: "42950" })
    expect(await refused.exited).toBe(1)
    expect(refused.stderr().trim()).toBe("cannot start: configuration: METRICS_PORT: is the same as PORT; the metrics listener needs a port of its own")
  })
})

// --- the same metrics over OTLP

interface OtlpAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string }
}
interface OtlpDataPoint {
  readonly attributes?: ReadonlyArray<OtlpAttribute>
  readonly count?: number | string
  readonly asInt?: number | string
  readonly asDouble?: number
}
interface OtlpMetric {
  readonly name: string
  readonly unit?: string
  readonly histogram?: { readonly dataPoints: ReadonlyArray<OtlpDataPoint> }
  readonly sum?: { readonly dataPoints: ReadonlyArray<OtlpDataPoint>; readonly isMonotonic?: boolean }
  readonly gauge?: { readonly dataPoints: ReadonlyArray<OtlpDataPoint> }
}

/** A loopback OTLP/HTTP JSON receiver: keeps the latest export of every metric by name. */
const startReceiver = () => {
  const metrics = new Map<string, OtlpMetric>()
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      if (req.method !== "POST") return new Response(null, { status: 405 })
      if (new URL(req.url).pathname === "/v1/metrics") {
        const body = (await req.json()) as { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<OtlpMetric> }> }> }
        for (const resource of body.resourceMetrics) {
          for (const scope of resource.scopeMetrics) for (const metric of scope.metrics) metrics.set(metric.name, metric)
        }
      }
      return Response.json({})
    }
  })
  const waitFor = async (name: string, predicate: (metric: OtlpMetric) => boolean, timeoutMs = 25_000) => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const metric = metrics.get(name)
      if (metric !== undefined && predicate(metric)) return metric
      await Bun.sleep(200)
    }
    throw new Error(`no export of ${name} within ${timeoutMs} ms; got: ${[...metrics.keys()].join(", ")}`)
  }
  return { url: `http://127.0.0.1:${server.port}`, waitFor, stop: () => server.stop(true) }
}

const attributesOf = (point: OtlpDataPoint) =>
  Object.fromEntries((point.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]))

describe("over OTLP", () => {
  let receiver: ReturnType<typeof startReceiver>
  let otlpDatabase: TestDatabase
  let exporting: ServiceProcess

  beforeAll(async () => {
    receiver = startReceiver()
    otlpDatabase = await migratedDatabase()
    exporting = spawnService({ ...databaseEnv(otlpDatabase), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, RATE_LIMIT_CAPACITY: "3" })
    const exportingUrl = await exporting.baseUrl()
    for (const path of ["/v1/stats", "/v1/songs/999999", "/v1/genres", "/v1/genres"]) await request(exportingUrl, path)
  }, 90_000)

  afterAll(async () => {
    exporting?.process.kill()
    await exporting?.exited
    await otlpDatabase?.drop()
    receiver?.stop()
  })

  test("the same metrics arrive with the conventions' names, units and attributes", async () => {
    const duration = await receiver.waitFor("http.server.request.duration", (metric) =>
      (metric.histogram?.dataPoints ?? []).some((point) => attributesOf(point)["http.route"] === "/v1/songs/:songId"))
    expect(duration.unit).toBe("s")
    const notFound = duration.histogram!.dataPoints.find((point) => attributesOf(point)["http.route"] === "/v1/songs/:songId")!
    // Effect's exporter carries the unit as an attribute too
    expect(attributesOf(notFound)).toEqual({
      "http.request.method": "GET",
      "url.scheme": "http",
      "http.route": "/v1/songs/:songId",
      "http.response.status_code": "404",
      unit: "s"
    })
    expect(Number(notFound.count)).toBe(1)

    const refusals = await receiver.waitFor("catalogue.rate_limit.refusals", (metric) => Number(metric.sum?.dataPoints[0]?.asDouble) === 1)
    expect(refusals.sum?.isMonotonic).toBe(true)
    expect((await receiver.waitFor("db.client.connection.wait_time", () => true)).unit).toBe("s")
    expect((await receiver.waitFor("process.memory.usage", () => true)).unit).toBe("By")
    const cache = await receiver.waitFor("catalogue.cache.requests", () => true)
    expect(cache.sum!.dataPoints.map((point) => attributesOf(point)["cache.result"]).sort()).toEqual(["hit", "miss"])
    await receiver.waitFor("http.server.active_requests", () => true)
  }, 40_000)
})
