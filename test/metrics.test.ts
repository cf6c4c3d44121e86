import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawnService, type ServiceProcess } from "./support/child.js"
import { databaseEnv, resolveTestDatabase, type TestDatabase } from "./support/database.js"
import { request } from "./support/http.js"

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
  readonly histogram?: { readonly dataPoints: ReadonlyArray<OtlpDataPoint> }
  readonly sum?: { readonly dataPoints: ReadonlyArray<OtlpDataPoint> }
}

/** A loopback OTLP/HTTP JSON receiver: keeps the latest export of every metric by name. */
const startReceiver = () => {
  const metrics = new Map<string, OtlpMetric>()
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname
      if (req.method !== "POST") return new Response(null, { status: 405 })
      if (path === "/v1/metrics") {
        const body = (await req.json()) as {
          resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<OtlpMetric> }> }>
        }
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

let receiver: ReturnType<typeof startReceiver>
let database: TestDatabase
let service: ServiceProcess
let baseUrl: string

// a process of its own: its metric registry holds this test's requests only
beforeAll(async () => {
  receiver = startReceiver()
  database = await resolveTestDatabase()
  service = spawnService({
    ...databaseEnv(database),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    METRICS: "prometheus",
    RATE_LIMIT_CAPACITY: "5",
    CACHE_TTL_SECONDS: "30"
  })
  baseUrl = await service.baseUrl()
  // a miss and a hit, a 404 by route, and a client past its five tokens
  for (const path of ["/v1/stats", "/v1/stats", "/v1/songs/999999", "/v1/genres", "/v1/genres", "/v1/genres"]) {
    await request(baseUrl, path)
  }
}, 90_000)

afterAll(async () => {
  service?.process.kill()
  await service?.exited
  await database?.drop()
  receiver?.stop()
})

describe("metrics", () => {
  test("/metrics answers Prometheus text with request durations by route, method and status, outside the rate limit", async () => {
    // the client is past its limit: /metrics still answers, and is never cached
    const first = await request(baseUrl, "/metrics")
    const second = await request(baseUrl, "/metrics")
    expect([first.status, second.status]).toEqual([200, 200])
    expect(first.headers.get("content-type")).toStartWith("text/plain; version=0.0.4")
    expect(first.headers.get("cache-control")).toBe("no-store")
    expect(first.headers.get("ratelimit")).toBeNull()
    const text = second.text
    expect(text).toMatch(/^# TYPE http_server_request_duration histogram$/m)
    expect(text).toMatch(
      /^http_server_request_duration_count\{[^}]*http_route="\/v1\/songs\/:songId"[^}]*http_request_method="GET"[^}]*http_response_status_code="404"[^}]*\} 1$/m
    )
    expect(text).toMatch(/^http_server_request_duration_count\{[^}]*http_route="\/v1\/stats"[^}]*http_response_status_code="200"[^}]*\} 2$/m)
    expect(text).toMatch(/^catalogue_rate_limit_refusals(_total)? 1$/m)
    expect(text).toMatch(/^http_response_cache_hits_total(_total)? [1-9]/m)
    expect(text).toMatch(/^http_response_cache_misses_total(_total)? [1-9]/m)
    expect(text).toMatch(/^db_client_connection_wait_time_count [1-9]/m)
    expect(text).toMatch(/^# TYPE catalogue_database_unavailable counter$/m)
  })

  test("the same metrics arrive over OTLP/HTTP at the configured endpoint", async () => {
    const duration = await receiver.waitFor("http.server.request.duration", (metric) =>
      (metric.histogram?.dataPoints ?? []).some((point) => attributesOf(point)["http.route"] === "/v1/songs/:songId"))
    const notFound = duration.histogram!.dataPoints.find((point) => attributesOf(point)["http.route"] === "/v1/songs/:songId")!
    expect(attributesOf(notFound)).toEqual({
      "http.route": "/v1/songs/:songId",
      "http.request.method": "GET",
      "http.response.status_code": "404"
    })
    expect(Number(notFound.count)).toBe(1)
    const refusals = await receiver.waitFor("catalogue.rate_limit.refusals", () => true)
    expect(Number(refusals.sum?.dataPoints[0]?.asInt ?? refusals.sum?.dataPoints[0]?.asDouble)).toBe(1)
    await receiver.waitFor("db.client.connection.wait_time", () => true)
    await receiver.waitFor("http_response_cache_hits_total", () => true)
  }, 40_000)
})
