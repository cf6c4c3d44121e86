import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { sharedServer, startServer, type TestServer } from "./support/server.js"
import { attributeOf, type OtlpSpan, type RecordingCollector, startRecordingCollector } from "./support/collector.js"
import { hs256 } from "./support/tokens.js"

const attribute = (span: OtlpSpan, key: string) => attributeOf(span.attributes, key)

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/

const hex = (length: number) => [...crypto.getRandomValues(new Uint8Array(length / 2))].map((b) => b.toString(16).padStart(2, "0")).join("")

/** True when `span` descends from the span with id `ancestorId` within the collected spans. */
const descendsFrom = (spans: ReadonlyArray<OtlpSpan>, span: OtlpSpan, ancestorId: string) => {
  let current: OtlpSpan | undefined = span
  for (let depth = 0; current !== undefined && depth < 20; depth++) {
    if (current.parentSpanId === ancestorId) return true
    const parentId: string | undefined = current.parentSpanId
    current = spans.find((candidate) => candidate.spanId === parentId)
  }
  return false
}

describe("tracing with OTEL_EXPORTER_OTLP_ENDPOINT set, every request sampled", () => {
  let collector: RecordingCollector
  let server: TestServer
  beforeAll(async () => {
    collector = await startRecordingCollector()
    server = await startServer({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url + "/",
        OTEL_SERVICE_NAME: "catalogue-under-test",
        OTEL_TRACES_SAMPLER: "always_on"
      }
    })
  }, 60_000)
  afterAll(async () => {
    await server.stop()
    await server.database.drop()
    collector.stop()
  })

  test("an incoming traceparent is continued: the server span is its child, named by route, and the response carries it", async () => {
    const traceId = hex(32)
    const callerSpanId = hex(16)
    const reply = await request(server.baseUrl, "/v1/stats", { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } })
    expect(reply.status).toBe(200)
    const [, returnedTrace, returnedSpan, flags] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
    expect(returnedTrace).toBe(traceId)
    expect(flags).toBe("01")

    const span = await collector.waitForSpan((s) => s.traceId === traceId && s.parentSpanId === callerSpanId)
    expect(span.name).toBe("GET /v1/stats")
    expect(span.spanId).toBe(returnedSpan!)
    expect(span.kind).toBe(2) // SERVER
    expect(attribute(span, "http.route")).toBe("/v1/stats")
    expect(attribute(span, "http.request.method")).toBe("GET")
    expect(attribute(span, "http.response.status_code")).toBe(200)
    expect(String(attribute(span, "client.address"))).toMatch(/127\.0\.0\.1$/)
    expect(attribute(span, "ratelimit.outcome")).toBe("allowed")
    expect(collector.received.map((r) => attributeOf(r.resource, "service.name"))).toContain("catalogue-under-test")
  })

  // a browse list is composed per request (Statements.runComposed, src/Database/Statements.ts), a song detail prepared once
  // (src/Database/Statements.ts): both are traced alike
  for (const [path, route, secret] of [
    ["/v1/songs?genre=rock-kapak", "/v1/songs", "rock-kapak"],
    ["/v1/songs/987654", "/v1/songs/:songId", "987654"]
  ] as const) {
    test(`every SQL statement is a child span with its text and never its values (${route})`, async () => {
      const reply = await request(server.baseUrl, path)
      expect([200, 404]).toContain(reply.status)
      const [, traceId, serverSpanId] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
      const serverSpan = await collector.waitForSpan((s) => s.spanId === serverSpanId)
      expect(serverSpan.name).toBe(`GET ${route}`)
      const sqlSpan = await collector.waitForSpan((s) => s.traceId === traceId && s.name === "sql.execute")
      await Bun.sleep(50)
      const statements = collector.spans().filter((s) => s.traceId === traceId && s.name === "sql.execute")
      expect(statements.length).toBeGreaterThan(0)
      for (const statement of statements) {
        expect(descendsFrom(collector.spans(), statement, serverSpanId!)).toBe(true)
        expect(attribute(statement, "db.system.name")).toBe("postgresql")
        expect(attribute(statement, "db.namespace")).toBeDefined()
        const text = String(attribute(statement, "db.query.text"))
        expect(text).not.toContain(secret)
      }
      // placeholders in place of values; a song detail's statement is cut (at 1,024 characters) before its `$1`
      const placeholdered = (text: string) => text.includes("$1") || text.length === 1024
      expect(statements.some((s) => placeholdered(String(attribute(s, "db.query.text"))))).toBe(true)
      expect(sqlSpan.kind).toBe(3) // CLIENT
    })
  }

  test("a string attribute is cut at OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, 1,024 characters by default (a song detail's statement is longer)", async () => {
    const reply = await request(server.baseUrl, "/v1/songs/987655")
    const [, traceId] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
    await collector.waitForSpan((s) => s.traceId === traceId && s.name === "sql.execute")
    await Bun.sleep(50)
    const texts = collector.spans()
      .filter((s) => s.traceId === traceId && s.name === "sql.execute")
      .map((s) => String(attribute(s, "db.query.text")))
    expect(texts.length).toBeGreaterThan(0)
    expect(Math.max(...texts.map((text) => text.length))).toBe(1024)
  })

  test("a request without traceparent starts a new trace, and the response names it", async () => {
    const reply = await request(server.baseUrl, "/v1/genres")
    const [, traceId, spanId, flags] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
    expect(flags).toBe("01")
    const span = await collector.waitForSpan((s) => s.spanId === spanId)
    expect(span.traceId).toBe(traceId!)
    expect(span.parentSpanId ?? "").toBe("")
    expect(span.name).toBe("GET /v1/genres")
  })

  test("staff token verification is a child span of the request, with the outcome of a refusal", async () => {
    const token = await hs256()
    const ok = await request(server.baseUrl, "/v1/admin/stats", { headers: { authorization: `Bearer ${token}` } })
    const refused = await request(server.baseUrl, "/v1/admin/stats", { headers: { authorization: "Bearer nonsense" } })
    expect([ok.status, refused.status]).toEqual([200, 401])
    for (const [reply, outcome] of [[ok, undefined], [refused, "Unauthorized"]] as const) {
      const [, , serverSpanId] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
      const verify = await collector.waitForSpan((s) =>
        s.name === "TokenVerifier.verify" && descendsFrom(collector.spans(), s, serverSpanId!)
      )
      expect(attribute(verify, "auth.outcome")).toBe(outcome)
    }
  })

  test("an unknown path's span is named by the method alone, with the 404 status", async () => {
    const reply = await request(server.baseUrl, "/v1/no-such-thing")
    expect(reply.status).toBe(404)
    const [, , spanId] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
    const span = await collector.waitForSpan((s) => s.spanId === spanId)
    expect(span.name).toBe("GET")
    expect(attribute(span, "http.response.status_code")).toBe(404)
  })

  test("health probes make no spans", async () => {
    const health = await request(server.baseUrl, "/v1/health")
    const ready = await request(server.baseUrl, "/v1/health/ready")
    expect([health.status, ready.status]).toEqual([200, 200])
    const after = await request(server.baseUrl, "/v1/stats")
    const [, , spanId] = TRACEPARENT.exec(after.headers.get("traceparent") ?? "") ?? []
    await collector.waitForSpan((s) => s.spanId === spanId)
    expect(collector.spans().filter((s) => String(attribute(s, "url.path")).startsWith("/v1/health"))).toEqual([])
    // their trace id is still in the response, for the log line
    expect(health.headers.get("traceparent")).toMatch(TRACEPARENT)
  })
})

describe("tracing with the response cache on", () => {
  let collector: RecordingCollector
  let server: TestServer
  beforeAll(async () => {
    collector = await startRecordingCollector()
    server = await startServer({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url + "/", OTEL_TRACES_SAMPLER: "always_on", CACHE_TTL_SECONDS: "30" }
    })
  }, 60_000)
  afterAll(async () => {
    await server.stop()
    await server.database.drop()
    collector.stop()
  })

  test("a hit's server span (recorded at the front door) says so and has nothing under it; a miss's has its SQL", async () => {
    const first = await request(server.baseUrl, "/v1/genres")
    const second = await request(server.baseUrl, "/v1/genres")
    expect([first.headers.get("x-cache"), second.headers.get("x-cache")]).toEqual(["miss", "hit"])
    const [missSpan, hitSpan] = await Promise.all([first, second].map((reply) => {
      const [, , spanId] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
      return collector.waitForSpan((s) => s.spanId === spanId)
    }))
    expect([attribute(missSpan!, "cache"), attribute(hitSpan!, "cache")]).toEqual(["miss", "hit"])
    expect(hitSpan!.name).toBe("GET /v1/genres")
    expect(attribute(hitSpan!, "http.route")).toBe("/v1/genres")
    await collector.waitForSpan((s) => attribute(s, "db.system.name") !== undefined && descendsFrom(collector.spans(), s, missSpan!.spanId))
    await Bun.sleep(500)
    expect(collector.spans().filter((s) => descendsFrom(collector.spans(), s, hitSpan!.spanId))).toEqual([])
  })
})

describe("without a tracing endpoint", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await sharedServer()
  }, 60_000)

  test("the response still carries a traceparent that continues the caller's trace, marked not sampled", async () => {
    const traceId = hex(32)
    const callerSpanId = hex(16)
    const reply = await request(server.baseUrl, "/v1/stats", { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } })
    const [, returnedTrace, returnedSpan, flags] = TRACEPARENT.exec(reply.headers.get("traceparent") ?? "") ?? []
    expect(returnedTrace).toBe(traceId)
    expect(returnedSpan).not.toBe(callerSpanId)
    expect(flags).toBe("00")
  })

  test("every response, errors included, gets a fresh trace id when the caller sends none", async () => {
    const first = await request(server.baseUrl, "/v1/no-such-thing")
    const second = await request(server.baseUrl, "/v1/no-such-thing")
    expect(first.status).toBe(404)
    const ids = [first, second].map((reply) => TRACEPARENT.exec(reply.headers.get("traceparent") ?? "")?.[1])
    expect(ids[0]).toMatch(/^[0-9a-f]{32}$/)
    expect(ids[1]).toMatch(/^[0-9a-f]{32}$/)
    expect(ids[0]).not.toBe(ids[1])
  })
})
