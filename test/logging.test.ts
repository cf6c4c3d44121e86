import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawnService, type ServiceProcess } from "./support/child.js"
import { databaseEnv, resolveTestDatabase, type TestDatabase } from "./support/database.js"
import { request } from "./support/http.js"

interface JsonLine {
  readonly message: string
  readonly logLevel: string
  readonly timestamp: string
  readonly annotations: Record<string, unknown>
}

const jsonLines = (service: ServiceProcess): Array<JsonLine> =>
  service
    .stdout()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as JsonLine)

/** The request log line of the response that carried `traceparent`. */
const lineFor = async (service: ServiceProcess, traceparent: string | null) => {
  const traceId = traceparent?.split("-")[1] ?? "missing"
  await service.waitForLine(new RegExp(`"trace_id":"${traceId}"[^\\n]*"duration_ms"|"duration_ms"[^\\n]*"trace_id":"${traceId}"`), 10_000)
  return jsonLines(service).find((line) => line.annotations["trace_id"] === traceId && "duration_ms" in line.annotations)!
}

const stopService = async (service: ServiceProcess) => {
  service.process.kill("SIGTERM")
  return service.exited
}

describe("logs with LOG_FORMAT=json", () => {
  let database: TestDatabase
  let service: ServiceProcess
  let baseUrl: string
  beforeAll(async () => {
    database = await resolveTestDatabase()
    service = spawnService({ ...databaseEnv(database), LOG_FORMAT: "json", CACHE_TTL_SECONDS: "30" })
    baseUrl = await service.baseUrl(90_000)
  }, 120_000)
  afterAll(async () => {
    await stopService(service)
    await database.drop()
  }, 30_000)

  test("every line on stdout is one JSON object with message, level and timestamp", () => {
    const lines = jsonLines(service)
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) {
      expect(typeof line.message).toBe("string")
      expect(line.logLevel).toMatch(/^(DEBUG|INFO|WARN|ERROR)$/)
      expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp)
    }
  })

  test("start-up says which database, which migrations ran and which optional features are on", () => {
    const lines = jsonLines(service)
    const databaseLine = lines.find((line) => line.message.startsWith("database: "))!
    expect(databaseLine.message).toMatch(database.kind === "postgres" ? /^database: PostgreSQL at / : /^database: embedded PGlite in /)
    expect(String(databaseLine.annotations["migrations_applied"])).toMatch(/^schema\/0_computed\.sql(,[\w/]+\.sql)*$/)
    const features = lines.find((line) => line.message.startsWith("features: "))!
    expect(features.message).toBe(
      "features: tracing off; staff tokens off; rate limits in memory; response cache 30 s; memory limit 240 MiB; " +
        "OTLP metrics off; OTLP logs off"
    )
    expect(features.annotations).toEqual({
      tracing: false,
      staff_tokens: false,
      redis_rate_limits: false,
      response_cache: true,
      memory_limit_mib: 240,
      otlp_metrics: false,
      otlp_logs: false
    })
  })

  test("one line per request: method, route, status, duration, bytes, trace id and cache hit or miss", async () => {
    const first = await request(baseUrl, "/v1/stats")
    const second = await request(baseUrl, "/v1/stats")
    expect([first.status, second.status]).toEqual([200, 200])
    const miss = await lineFor(service, first.headers.get("traceparent"))
    expect(miss.message).toBe("GET /v1/stats 200")
    expect(miss.logLevel).toBe("INFO")
    expect(miss.annotations).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/v1/stats",
      "url.path": "/v1/stats",
      "http.response.status_code": 200,
      bytes: Number(first.headers.get("content-length")),
      cache: "miss",
      "ratelimit.outcome": "allowed"
    })
    expect(miss.annotations["duration_ms"]).toBeGreaterThanOrEqual(0)
    const hit = await lineFor(service, second.headers.get("traceparent"))
    expect(hit.annotations["cache"]).toBe("hit")
    expect(jsonLines(service).filter((line) => line.annotations["trace_id"] === miss.annotations["trace_id"])).toHaveLength(1)
  })

  test("a route with a parameter is logged by its template, a 404 by its path", async () => {
    const song = await request(baseUrl, "/v1/songs/999999")
    const missing = await request(baseUrl, "/v1/nothing-here?q=1")
    expect(song.status).toBe(404)
    const songLine = await lineFor(service, song.headers.get("traceparent"))
    expect(songLine.annotations).toMatchObject({ "http.route": "/v1/songs/:songId", "url.path": "/v1/songs/999999", "http.response.status_code": 404 })
    const missingLine = await lineFor(service, missing.headers.get("traceparent"))
    expect(missingLine.message).toBe("GET /v1/nothing-here 404")
    expect(missingLine.annotations["http.route"]).toBe("")
  })

  test("HEAD and 304 responses log zero bytes", async () => {
    const head = await request(baseUrl, "/v1/stats", { method: "HEAD" })
    const etag = head.headers.get("etag")!
    const notModified = await request(baseUrl, "/v1/stats", { headers: { "if-none-match": etag } })
    expect(notModified.status).toBe(304)
    expect((await lineFor(service, head.headers.get("traceparent"))).annotations["bytes"]).toBe(0)
    expect((await lineFor(service, notModified.headers.get("traceparent"))).annotations["bytes"]).toBe(0)
  })
})

describe("a failed request's log line", () => {
  test("names the request's trace id, the one its traceparent carries", async () => {
    const database = await resolveTestDatabase()
    if (database.kind !== "postgres") return database.drop() // the embedded database cannot become unreachable
    const service = spawnService({ ...databaseEnv(database), LOG_FORMAT: "json" })
    const { default: pg } = await import("pg")
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    const name = new URL(database.url).pathname.slice(1)
    try {
      const baseUrl = await service.baseUrl(90_000)
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`)
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
      const reply = await request(baseUrl, "/v1/songs/1")
      expect(reply.status).toBe(503)
      const traceId = reply.headers.get("traceparent")?.split("-")[1] ?? "missing"
      await service.waitForLine(/"request failed"/, 10_000)
      const failed = jsonLines(service).find((line) => line.message === "request failed")!
      expect(failed.logLevel).toBe("ERROR")
      expect(failed.annotations["trace_id"]).toBe(traceId)
    } finally {
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`)
      await admin.end()
      await stopService(service)
      await database.drop()
    }
  }, 120_000)
})

/** A port nobody listens on right now (at LOG_LEVEL=warn the service does not log its address). */
const freePort = () => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port
  probe.stop(true)
  return port
}

const waitForHealth = async (baseUrl: string, service: ServiceProcess, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && service.process.exitCode === null) {
    const ok = await fetch(baseUrl + "/v1/health").then((r) => r.ok, () => false)
    if (ok) return
    await Bun.sleep(200)
  }
  throw new Error(`the service did not answer:\n${service.stdout()}\n${service.stderr()}`)
}

describe("LOG_LEVEL and the text format", () => {
  test("LOG_LEVEL=warn keeps request lines out; LOG_FORMAT=text writes logfmt", async () => {
    const database = await resolveTestDatabase()
    const port = freePort()
    const service = spawnService({ ...databaseEnv(database), LOG_LEVEL: "warn", PORT: String(port) })
    try {
      const baseUrl = `http://127.0.0.1:${port}`
      await waitForHealth(baseUrl, service)
      const reply = await request(baseUrl, "/v1/stats")
      expect(reply.status).toBe(200)
      await Bun.sleep(200)
      expect(service.stdout()).not.toContain("/v1/stats")
      expect(service.stdout()).not.toContain("level=INFO")
      expect(service.stdout()).toMatch(/^timestamp=\S+ level=WARN fiber=#\d+ message="staff group disabled/m)
    } finally {
      await stopService(service)
      await database.drop()
    }
  }, 120_000)
})
