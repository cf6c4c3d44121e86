import { beforeAll, describe, expect, test } from "bun:test"
import { CatalogueStats } from "../src/Contract/Stats.js"
import { Health, ServiceIndex } from "../src/Meta/Api.js"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { decodeWith, request } from "./support/http.js"
import { sharedServer, startServer, type TestServer } from "./support/server.js"
import { onPostgres } from "./support/database.js"
import { fixtureDatabase } from "./support/template.js"
import { testWhen } from "./support/skips.js"
import pg from "pg"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

describe("Meta", () => {
  test("the service index lists every endpoint of the HttpApi with its group", async () => {
    const reply = await request(server.baseUrl, "/v1")
    expect(reply.status).toBe(200)
    const index = decodeWith(DetailEnvelope(ServiceIndex, "Index"), reply.body).data
    expect(index.version).toBe("1.0.0")
    expect(index.openapi_url).toBe("/v1/openapi.json")
    const openapi = (await request(server.baseUrl, "/v1/openapi.json")).body
    const documented = Object.keys(openapi.paths).sort()
    const indexed = [...new Set(index.endpoints.map((e) => e.path.replace(/:(\w+)/g, "{$1}")))].sort()
    expect(indexed).toEqual(documented)
    expect(index.endpoints).toContainEqual(expect.objectContaining({ path: "/v1/stats", group: "Meta", method: "GET" }))
  })

  test("the OpenAPI document is 3.1 and names the eleven groups", async () => {
    const reply = await request(server.baseUrl, "/v1/openapi.json")
    expect(reply.status).toBe(200)
    expect(reply.body.openapi).toBe("3.1.0")
    expect(reply.body.info.version).toBe("1.0.0")
    expect(reply.text).not.toContain("HttpApiDecodeError")
  })

  test("/docs serves an interactive documentation page", async () => {
    const reply = await request(server.baseUrl, "/docs")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toContain("text/html")
  })

  test("health answers without the database, readiness with it", async () => {
    const health = await request(server.baseUrl, "/v1/health")
    expect(decodeWith(DetailEnvelope(Health, "H"), health.body).data.status).toBe("ok")
    const ready = await request(server.baseUrl, "/v1/health/ready")
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ data: { status: "ok", database: "reachable" } })
  })

  test("stats count public rows only", async () => {
    const reply = await request(server.baseUrl, "/v1/stats")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
    const stats = decodeWith(DetailEnvelope(CatalogueStats, "S"), reply.body).data
    // 13 hand-made songs minus the unpublished, deleted and future canaries, plus 60 filler songs
    expect(stats.songs).toBe(70)
    // every artist but the one credited only on hidden songs
    expect(stats.artists).toBe(10)
    expect(stats.genres).toBe(4)
    expect(stats.labels).toBe(3)
    expect(stats.earliest_year).toBe(1989)
    // public members with a contribution on a public song: aishah_fan and zul
    expect(stats.contributors).toBe(2)
    const [{ credits }] = (await server.sql<{ credits: number }>(
      "SELECT count(*)::int AS credits FROM credits WHERE song_id NOT IN (10, 11, 12)"
    )) as [{ credits: number }]
    expect(stats.credits).toBe(credits)
    // song 8 was released five days ago; the future canary two days ago does not count
    expect(stats.recent_releases.count).toBe(1)
    expect(stats.recent_releases.released_from).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })
})

describe("readiness without a database", () => {
  testWhen(onPostgres, "the embedded database cannot become unreachable")("answers 503 internal_error with Retry-After when the database is unreachable", async () => {
    const database = await fixtureDatabase()
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    const other = await startServer({ database })
    const name = new URL(database.url).pathname.slice(1)
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    try {
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`)
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
      const ready = await request(other.baseUrl, "/v1/health/ready")
      const stats = await request(other.baseUrl, "/v1/stats")
      expect(ready.status).toBe(503)
      expect(ready.body.error.code).toBe("internal_error")
      expect(stats.status).toBe(503)
      expect(stats.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } })
      expect(stats.text).not.toMatch(/terminat|pg_|SQL|allow/i)
      // every 503 says when to try again
      expect([ready, stats].map((reply) => reply.headers.get("retry-after"))).toEqual(["5", "5"])
      // the detail reads are prepared statements (src/Database/Statements.ts): the same runner, the same 503
      const song = await request(other.baseUrl, "/v1/songs/1")
      expect(song.status).toBe(503)
      expect(song.headers.get("retry-after")).toBe("5")
      expect(song.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } })
      expect(song.text).not.toMatch(/terminat|pg_|SQL|allow/i)
    } finally {
      await other.stop()
      await admin.end()
      await database.drop()
    }
  }, 60_000)
})
