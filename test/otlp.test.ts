// runs alone: its latency and memory with a silent collector against without one
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { API_VERSION } from "../src/Contract/Api.js"
import { spawnService } from "./support/child.js"
import { attributeOf, freePort, type RecordingCollector, startRecordingCollector, startSilentCollector } from "./support/collector.js"
import { databaseEnv, onPostgres } from "./support/database.js"
import { testWhen } from "./support/skips.js"
import { startEdgeServer } from "./support/edge.js"
import { request } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { slow } from "./support/slow.js"

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/
const traceOf = (reply: { readonly headers: Headers }) => {
  const [, traceId, spanId, flags] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
  return { traceId: traceId!, spanId: spanId!, sampled: flags === "01" }
}
const hex = (length: number) => [...crypto.getRandomValues(new Uint8Array(length / 2))].map((b) => b.toString(16).padStart(2, "0")).join("")

/** Exports every few hundred milliseconds, so a test sees them soon. */
const QUICK_EXPORTS = { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_METRIC_EXPORT_INTERVAL: "200", OTEL_BLRP_SCHEDULE_DELAY: "100" }

/** The id the next fiber will have, near enough: Effect numbers its fibers in one sequence per process. */
const nextFiberId = () => Effect.runSync(Effect.withFiber((fiber) => Effect.succeed(fiber.id)))

describe("OTLP export to a collector that records", () => {
  let collector: RecordingCollector
  let server: TestServer
  beforeAll(async () => {
    collector = await startRecordingCollector()
    server = await startEdgeServer({
      ...QUICK_EXPORTS,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${collector.url}/custom/metrics`,
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=s3cret%20key",
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: "x-logs-key=for-logs",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test,team=music%20data",
      OTEL_SERVICE_NAME: "catalogue-otlp-test",
      OTEL_LOGS_EXPORTER: "otlp",
      OTEL_TRACES_SAMPLER: "always_on",
      LOG_LEVEL: "info",
      CACHE_TTL_SECONDS: "30"
    })
  }, 60_000)
  afterAll(async () => {
    await server.stop()
    collector.stop()
  })

  test("traces, metrics and logs arrive at their own paths with the configured headers and resource", async () => {
    expect((await request(server.baseUrl, "/v1/stats")).status).toBe(200)
    const arrived = (path: string) => collector.waitFor(() => collector.received.find((r) => r.path === path), `export to ${path}`)
    const [traces, metrics, logs] = await Promise.all([arrived("/v1/traces"), arrived("/custom/metrics"), arrived("/v1/logs")])
    for (const [received, key, value] of [[traces, "x-api-key", "s3cret key"], [metrics, "x-api-key", "s3cret key"], [logs, "x-logs-key", "for-logs"]] as const) {
      expect(received.headers[key]).toBe(value)
      expect(received.headers["content-type"]).toStartWith("application/json")
      expect(attributeOf(received.resource, "service.name")).toBe("catalogue-otlp-test")
      expect(attributeOf(received.resource, "service.version")).toBe(API_VERSION)
      expect(attributeOf(received.resource, "deployment.environment")).toBe("test")
      expect(attributeOf(received.resource, "team")).toBe("music data")
    }
    // a signal's own headers replace the general ones
    expect(logs.headers["x-api-key"]).toBeUndefined()
    expect(collector.received.some((r) => r.path === "/v1/metrics")).toBe(false)
    // an export made before the request was counted lacks its series: wait for one made after
    await collector.waitFor(
      () => collector.received.find((r) => r.path === "/custom/metrics" && r.metricNames.includes("http.server.request.duration")),
      "an export of metrics with the request's duration"
    )
    const metricNames = new Set(collector.received.flatMap((r) => r.metricNames))
    expect(metricNames).toContain("http.server.request.duration")
    expect(metricNames).toContain("catalogue.telemetry.dropped")
  })

  test("request lines arrive as log records with their request's trace and span ids; the service's other lines too", async () => {
    const callerTrace = hex(32)
    const reply = await request(server.baseUrl, "/v1/genres", { headers: { traceparent: `00-${callerTrace}-${hex(16)}-01` } })
    const { traceId, spanId, sampled } = traceOf(reply)
    expect([traceId, sampled]).toEqual([callerTrace, true])
    const line = await collector.waitFor(
      () => collector.logRecords().find((record) => record.traceId === traceId && record.body.stringValue === "GET /v1/genres 200"),
      "request line"
    )
    expect(line.spanId).toBe(spanId)
    expect(line.severityText).toBe("INFO")
    expect(attributeOf(line.attributes, "http.route")).toBe("/v1/genres")
    expect(attributeOf(line.attributes, "http.response.status_code")).toBe(200)
    const listening = collector.logRecords().find((record) => String(record.body.stringValue).startsWith("Listening on"))
    expect(listening).toBeDefined()
  })

  test("the front door stays on: sampled cache hits are answered there, without a fiber, and their spans recorded", async () => {
    const path = "/v1/songs/1"
    const miss = await request(server.baseUrl, path)
    expect(miss.headers.get("x-cache")).toBe("miss")
    const before = nextFiberId()
    const hits = []
    for (let i = 0; i < 100; i++) hits.push(await request(server.baseUrl, path))
    const fibers = nextFiberId() - before
    expect(hits.every((hit) => hit.headers.get("x-cache") === "hit" && traceOf(hit).sampled)).toBe(true)
    // a request through the pipeline is a fiber at least; the exporters fork a few of their own meanwhile
    expect(fibers).toBeLessThan(hits.length / 2)
    const last = traceOf(hits.at(-1)!)
    const span = await collector.waitForSpan((s) => s.spanId === last.spanId)
    expect(span.traceId).toBe(last.traceId)
    expect(span.name).toBe("GET /v1/songs/:songId")
    expect(span.kind).toBe(2) // SERVER
    expect(attributeOf(span.attributes, "cache")).toBe("hit")
    expect(attributeOf(span.attributes, "http.route")).toBe("/v1/songs/:songId")
    expect(attributeOf(span.attributes, "url.path")).toBe(path)
  })
})

describe("sampling", () => {
  const servers: Array<TestServer> = []
  const collectors: Array<RecordingCollector> = []
  const start = async (env: Record<string, string>) => {
    const collector = await startRecordingCollector()
    collectors.push(collector)
    const server = await startEdgeServer({ ...QUICK_EXPORTS, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, CACHE_TTL_SECONDS: "30", ...env })
    servers.push(server)
    return { collector, server }
  }
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()))
    for (const collector of collectors) collector.stop()
  })

  test("always_off: no span arrives, metrics do", async () => {
    const { collector, server } = await start({ OTEL_TRACES_SAMPLER: "always_off" })
    const replies = [
      await request(server.baseUrl, "/v1/stats"),
      await request(server.baseUrl, "/v1/stats", { headers: { traceparent: `00-${hex(32)}-${hex(16)}-01` } })
    ]
    expect(replies.map((reply) => traceOf(reply).sampled)).toEqual([false, false])
    await collector.waitFor(() => collector.received.find((r) => r.path === "/v1/metrics" && r.metricNames.length > 0), "metrics")
    await Bun.sleep(500)
    expect(collector.spans()).toEqual([])
  })

  test("traceidratio 0.5: about half the requests are sampled, and exactly those are traced", async () => {
    const { collector, server } = await start({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" })
    const traces = []
    for (let i = 0; i < 400; i++) traces.push(traceOf(await request(server.baseUrl, "/v1/genres")))
    const sampled = traces.filter((trace) => trace.sampled)
    expect(sampled.length).toBeGreaterThan(140)
    expect(sampled.length).toBeLessThan(260)
    const serverSpans = () => collector.spans().filter((span) => span.kind === 2)
    await collector.waitFor(() => (serverSpans().length >= sampled.length ? true : undefined), `${sampled.length} server spans`)
    expect(new Set(serverSpans().map((span) => span.spanId))).toEqual(new Set(sampled.map((trace) => trace.spanId)))
  })

  test("parentbased_traceidratio: a caller's decision is followed either way, trace id kept; a root request by the ratio", async () => {
    const { collector, server } = await start({ OTEL_TRACES_SAMPLER_ARG: "0" })
    const callerTrace = hex(32)
    const callerSpan = hex(16)
    const followed = traceOf(await request(server.baseUrl, "/v1/stats", { headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` } }))
    const declined = traceOf(await request(server.baseUrl, "/v1/stats", { headers: { traceparent: `00-${hex(32)}-${hex(16)}-00` } }))
    const root = traceOf(await request(server.baseUrl, "/v1/stats"))
    expect([followed.sampled, declined.sampled, root.sampled]).toEqual([true, false, false])
    expect(followed.traceId).toBe(callerTrace)
    const span = await collector.waitForSpan((s) => s.spanId === followed.spanId)
    expect(span.traceId).toBe(callerTrace)
    expect(span.parentSpanId).toBe(callerSpan)
    await Bun.sleep(500)
    expect(collector.spans().filter((s) => s.kind === 2).map((s) => s.spanId)).toEqual([followed.spanId])
  })
})

/** Resident memory of a process, MiB. */
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024

/** `count` requests over `connections` keep-alive connections: a fifth of them misses of the cache, the rest hits. */
const drive = async (baseUrl: string, count: number, connections: number) => {
  const hot = ["/v1/songs/1", "/v1/songs/2", "/v1/genres", "/v1/stats", "/v1/labels", "/v1/songs?limit=5"]
  const latencies: Array<number> = []
  let next = 0
  let failed = 0
  const client = async () => {
    while (next < count) {
      const i = next++
      const path = i % 5 === 0 ? `/v1/songs?limit=${1 + (i % 40)}&offset=${Math.floor(i / 40)}` : hot[i % hot.length]!
      const startedAt = performance.now()
      const response = await fetch(baseUrl + path)
      await response.arrayBuffer()
      latencies.push(performance.now() - startedAt)
      if (response.status !== 200) failed++
    }
  }
  await Promise.all(Array.from({ length: connections }, client))
  latencies.sort((a, b) => a - b)
  return { medianMs: latencies[Math.floor(latencies.length / 2)]!, failed }
}

/** The Prometheus text of `/metrics`: on the metrics listener where there is one, else beside the API. */
const metricsText = async (baseUrl: string, metricsPort: number) => {
  for (const url of [`http://127.0.0.1:${metricsPort}/metrics`, `${baseUrl}/metrics`]) {
    const response = await fetch(url).catch(() => undefined)
    if (response?.ok) return response.text()
  }
  throw new Error("no /metrics answered")
}

describe("a collector that accepts connections and never answers", () => {
  let database: Awaited<ReturnType<typeof sharedServer>>["database"]
  beforeAll(async () => {
    database = (await sharedServer()).database
  }, 60_000)

  slow(testWhen(onPostgres, "the service runs as two processes over one database"), "10,000 requests, with a collector and without", 5)("10,000 requests: memory and latency as without a collector, connections bounded, what could not go counted", async () => {
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    const metricsPort = await freePort()
    const common = {
      ...databaseEnv(database),
      LOG_LEVEL: "info",
      RATE_LIMIT_CAPACITY: "1000000000",
      RATE_LIMIT_MAX_IN_FLIGHT: "1000",
      // the memory guard collects garbage every second in both runs: what is compared is what the
      // process keeps, not when it last collected
      MEMORY_LIMIT_MIB: "16",
      METRICS: "prometheus",
      METRICS_PORT: String(metricsPort)
    }
    /** The service under `count` requests; then, idle, its lowest resident memory over 5 s (what it keeps, not its garbage). */
    const run = async (env: Record<string, string>) => {
      const service = spawnService({ ...common, ...env })
      try {
        const baseUrl = await service.baseUrl(90_000)
        await drive(baseUrl, 500, 4) // warm: statements prepared, caches filled, the engine's code compiled
        const result = await drive(baseUrl, 10_000, 4)
        let keptMiB = Infinity
        for (let i = 0; i < 20; i++) {
          await Bun.sleep(250)
          keptMiB = Math.min(keptMiB, rssMiB(service.process.pid))
        }
        return { ...result, keptMiB, metrics: await metricsText(baseUrl, metricsPort) }
      } finally {
        service.process.kill("SIGTERM")
        await service.exited
      }
    }

    const without = await run({})
    const collector = await startSilentCollector()
    try {
      const silent = await run({
        ...QUICK_EXPORTS,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
        OTEL_TRACES_SAMPLER: "always_on",
        OTEL_LOGS_EXPORTER: "otlp"
      })
      const open = collector.peakOpenByPath()
      console.log(
        `without a collector: RSS ${without.keptMiB.toFixed(1)} MiB, median ${without.medianMs.toFixed(2)} ms; ` +
          `silent collector: RSS ${silent.keptMiB.toFixed(1)} MiB, median ${silent.medianMs.toFixed(2)} ms, ` +
          `${collector.accepted()} connections accepted, at most open at once ${JSON.stringify(open)}`
      )
      expect([without.failed, silent.failed]).toEqual([0, 0])
      expect(silent.keptMiB - without.keptMiB).toBeLessThan(20)
      expect(silent.medianMs).toBeLessThan(without.medianMs * 2 + 1)
      for (const path of ["/v1/traces", "/v1/metrics", "/v1/logs"]) {
        expect(open[path]).toBeGreaterThan(0)
        expect(open[path]).toBeLessThanOrEqual(3)
      }
      for (const signal of ["traces", "metrics", "logs"]) {
        const dropped = new RegExp(`^catalogue_telemetry_dropped(?:_total)?\\{[^}]*signal="${signal}"[^}]*\\} (\\d+)`, "m").exec(silent.metrics)
        expect(Number(dropped?.[1])).toBeGreaterThan(0)
      }
    } finally {
      await collector.stop()
    }
  })
})
