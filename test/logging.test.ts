import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../src/Config.js"
import { EffectLoggerLive, type LogLine, LogWriter } from "../src/Logging.js"
import { freePort, spawnService, type ServiceProcess } from "./support/child.js"
import { databaseEnv, onPostgres, resolveTestDatabase, type TestDatabase } from "./support/database.js"
import { migratedDatabase } from "./support/template.js"
import { testWhen } from "./support/skips.js"
import { request } from "./support/http.js"
import { TEST_ENV } from "./support/server.js"

/** A JSON line: flat, every key at the top level. */
type JsonLine = Readonly<Record<string, unknown>> & {
  readonly message: string
  readonly level: string
  readonly timestamp: string
}

const jsonLines = (service: ServiceProcess): Array<JsonLine> =>
  service
    .stdout()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as JsonLine)

const DURATION = "http.server.request.duration"

/** The request log line of the response that carried `traceparent`: its trace id and span id. */
const lineFor = async (service: ServiceProcess, traceparent: string | null) => {
  const [, traceId = "missing", spanId = "missing"] = traceparent?.split("-") ?? []
  await service.waitForLine(new RegExp(`"trace_id":"${traceId}","span_id":"${spanId}"[^\\n]*"${DURATION.replaceAll(".", "\\.")}"`), 10_000)
  return jsonLines(service).find((line) => line["trace_id"] === traceId && line["span_id"] === spanId && DURATION in line)!
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

  test("every line on stdout is one flat JSON object: timestamp, level, message, then the line's keys", () => {
    const lines = jsonLines(service)
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) {
      expect(Object.keys(line).slice(0, 3)).toEqual(["timestamp", "level", "message"])
      expect(typeof line.message).toBe("string")
      expect(line.level).toMatch(/^(DEBUG|INFO|WARN|ERROR)$/)
      expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp)
      for (const value of Object.values(line)) expect(value === null || typeof value !== "object").toBe(true)
      for (const nested of ["annotations", "spans", "fiberId", "logLevel"]) expect(line).not.toHaveProperty([nested])
    }
  })

  test("start-up says which database, which migrations ran and which optional features are on", () => {
    const lines = jsonLines(service)
    const databaseLine = lines.find((line) => line.message.startsWith("database: "))!
    expect(databaseLine.message).toMatch(database.kind === "postgres" ? /^database: PostgreSQL at / : /^database: embedded PGlite in /)
    expect(String(databaseLine["migrations_applied"])).toMatch(/^schema\/0_computed\.sql(,[\w/]+\.sql)*$/)
    const features = lines.find((line) => line.message.startsWith("features: "))!
    const memory = database.kind === "postgres" ? "128 MiB of JS heap" : "off (embedded database)"
    expect(features.message).toBe(
      `features: tracing off; staff tokens off; rate limits in memory; response cache 30 s; memory limit ${memory}; ` +
        "OTLP metrics off; OTLP logs off"
    )
    expect(features).toMatchObject({
      tracing: false,
      staff_tokens: false,
      redis_rate_limits: false,
      response_cache: true,
      memory_limit_mib: database.kind === "postgres" ? 128 : 0,
      otlp_metrics: false,
      otlp_logs: false
    })
  })

  test("one line per request: method, route, status, duration in seconds, body size, trace and span ids, cache hit or miss", async () => {
    const first = await request(baseUrl, "/v1/stats")
    const second = await request(baseUrl, "/v1/stats")
    expect([first.status, second.status]).toEqual([200, 200])
    const miss = await lineFor(service, first.headers.get("traceparent"))
    expect(miss).toMatchObject({
      message: "GET /v1/stats 200",
      level: "INFO",
      "http.request.method": "GET",
      "http.route": "/v1/stats",
      "url.path": "/v1/stats",
      "http.response.status_code": 200,
      "http.response.body.size": Number(first.headers.get("content-length")),
      "client.address": expect.stringMatching(/127\.0\.0\.1$/),
      cache: "miss",
      "ratelimit.outcome": "allowed"
    })
    expect(miss["trace_id"]).toMatch(/^[0-9a-f]{32}$/)
    expect(miss["span_id"]).toMatch(/^[0-9a-f]{16}$/)
    // seconds: a request that took under 10 s
    expect(miss[DURATION]).toBeGreaterThan(0)
    expect(miss[DURATION]).toBeLessThan(10)
    const hit = await lineFor(service, second.headers.get("traceparent"))
    expect(hit["cache"]).toBe("hit")
    expect(jsonLines(service).filter((line) => line["trace_id"] === miss["trace_id"])).toHaveLength(1)
  })

  test("a caller's trace is kept; the line names the request's own span, the one its traceparent answer names", async () => {
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    const reply = await request(baseUrl, "/v1/stats", { headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` } })
    const [, traceId, spanId] = reply.headers.get("traceparent")!.split("-")
    expect(traceId).toBe(callerTrace)
    expect(spanId).not.toBe("00f067aa0ba902b7")
    const line = await lineFor(service, reply.headers.get("traceparent"))
    expect(line).toMatchObject({ trace_id: callerTrace, span_id: spanId })
  })

  test("a route with a parameter is logged by its template, a 404 by its path", async () => {
    const song = await request(baseUrl, "/v1/songs/999999")
    const missing = await request(baseUrl, "/v1/nothing-here?q=1")
    expect(song.status).toBe(404)
    const songLine = await lineFor(service, song.headers.get("traceparent"))
    expect(songLine).toMatchObject({ "http.route": "/v1/songs/:songId", "url.path": "/v1/songs/999999", "http.response.status_code": 404 })
    const missingLine = await lineFor(service, missing.headers.get("traceparent"))
    expect(missingLine.message).toBe("GET /v1/nothing-here 404")
    expect(missingLine["http.route"]).toBe("")
  })

  test("HEAD and 304 responses log a body size of zero", async () => {
    const head = await request(baseUrl, "/v1/stats", { method: "HEAD" })
    const etag = head.headers.get("etag")!
    const notModified = await request(baseUrl, "/v1/stats", { headers: { "if-none-match": etag } })
    expect(notModified.status).toBe(304)
    expect((await lineFor(service, head.headers.get("traceparent")))["http.response.body.size"]).toBe(0)
    expect((await lineFor(service, notModified.headers.get("traceparent")))["http.response.body.size"]).toBe(0)
  })
})

describe("a failed request's log line", () => {
  testWhen(onPostgres, "the embedded database cannot become unreachable")("names the request's trace and span ids, the ones its traceparent carries", async () => {
    const database = await migratedDatabase()
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
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
      const [, traceId, spanId] = reply.headers.get("traceparent")!.split("-")
      await service.waitForLine(/"request failed"/, 10_000)
      const failed = jsonLines(service).find((line) => line.message === "request failed")!
      expect(failed).toMatchObject({ level: "ERROR", trace_id: traceId, span_id: spanId })
      expect(failed["reason"]).toMatch(/^database unavailable: /)
    } finally {
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`)
      await admin.end()
      await stopService(service)
      await database.drop()
    }
  }, 120_000)
})

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
    const database = await migratedDatabase()
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
      expect(service.stdout()).toMatch(/^timestamp=\S+ level=WARN message="staff group disabled/m)
    } finally {
      await stopService(service)
      await database.drop()
    }
  }, 120_000)

  test("logfmt (the default) has the JSON lines' keys, in the same order", async () => {
    const database = await migratedDatabase()
    const service = spawnService({ ...databaseEnv(database) })
    try {
      const baseUrl = await service.baseUrl(90_000)
      const reply = await request(baseUrl, "/v1/stats")
      const [, traceId, spanId] = reply.headers.get("traceparent")!.split("-")
      const line = await service.waitForLine(new RegExp(`trace_id=${traceId} `), 10_000)
      const keys = [...line.matchAll(/(?:^| )([^\s=]+)=(?:"(?:[^"\\]|\\.)*"|\S*)/g)].map((match) => match[1])
      expect(keys).toEqual([
        "timestamp", "level", "message", "trace_id", "span_id", "http.request.method", "http.route", "url.path",
        "http.response.status_code", "http.server.request.duration", "http.response.body.size", "client.address",
        "ratelimit.outcome", "cache"
      ])
      expect(line).toContain(` level=INFO message="GET /v1/stats 200" trace_id=${traceId} span_id=${spanId} `)
      const seconds = Number(/ http\.server\.request\.duration=(\S+) /.exec(line)?.[1])
      expect(seconds).toBeGreaterThan(0)
      expect(seconds).toBeLessThan(10)
    } finally {
      await stopService(service)
      await database.drop()
    }
  }, 120_000)
})

describe("the lines of Effect's logger", () => {
  /** The lines `program` logs, as the writer receives them. */
  const linesOf = (program: Effect.Effect<void>) => {
    const lines: Array<LogLine> = []
    const layer = EffectLoggerLive.pipe(
      Layer.provide(Layer.succeed(LogWriter, (line: LogLine) => void lines.push(line))),
      Layer.provide(AppConfig.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...TEST_ENV, LOG_LEVEL: "info" } })))
    )
    Effect.runSync(program.pipe(Effect.provide(layer)))
    return lines
  }

  test("annotations become top-level keys; the line's own keys are not replaced", () => {
    const [line] = linesOf(
      Effect.logWarning("rows", 3).pipe(Effect.annotateLogs({ table: "songs", count: 3, message: "not this" }))
    )
    expect(line).toMatchObject({ level: "Warn", message: "rows 3", attributes: { table: "songs", count: 3 } })
    expect(line?.attributes).not.toHaveProperty("message")
  })

  test("a cause is written as OpenTelemetry's exception keys", () => {
    const [line] = linesOf(Effect.logError("request failed", Cause.fail(new TypeError("no such thing"))))
    expect(line?.attributes).toMatchObject({ "exception.type": "TypeError", "exception.message": "no such thing" })
    expect(String(line?.attributes["exception.stacktrace"])).toContain("TypeError: no such thing")
  })

  test("a line written inside a span carries its trace and span ids; an annotation names them instead", () => {
    const [inside, annotated] = linesOf(
      Effect.gen(function*() {
        yield* Effect.logInfo("inside")
        yield* Effect.logInfo("annotated").pipe(Effect.annotateLogs({ trace_id: "t", span_id: "s" }))
      }).pipe(Effect.withSpan("work"))
    )
    expect(inside?.attributes["trace_id"]).toMatch(/^[0-9a-f]{32}$/)
    expect(inside?.attributes["span_id"]).toMatch(/^[0-9a-f]{16}$/)
    expect(annotated?.attributes).toMatchObject({ trace_id: "t", span_id: "s" })
    expect(linesOf(Effect.logInfo("outside"))[0]?.attributes).not.toHaveProperty("trace_id")
  })
})
