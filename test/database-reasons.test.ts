import { afterAll, beforeAll, expect, test } from "bun:test"
import pg from "pg"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { spawnService, type ServiceProcess } from "./support/child.js"
import { onPostgres, resolveTestDatabase, type TestDatabase } from "./support/database.js"
import { decodeWith, request } from "./support/http.js"
import { type FaultProxy, startFaultProxy } from "./support/proxy.js"
import { describeWhen, ON_POSTGRES_ONLY } from "./support/skips.js"

/**
 * A database failure answered by its SqlError reason, in the service as an operator runs it: a
 * database that is away (a statement timeout, a lost or a refused connection) is the 503 envelope
 * with its one "database unavailable" line; any other SQL error is a bug, a 500 logged with its cause.
 */

/** PostgreSQL cancels at this; the runner's own deadline is well past it, so the cancel is PostgreSQL's (57014). */
const STATEMENT_TIMEOUT_MS = 1000

type JsonLine = Record<string, unknown> & { readonly message: string }

let database: TestDatabase
let proxy: FaultProxy
let service: ServiceProcess
let baseUrl: string
/** A connection of the test's own, beside the service's: it holds locks and breaks the schema. */
let admin: pg.Client

beforeAll(async () => {
  database = await resolveTestDatabase()
  if (database.kind !== "postgres") return
  proxy = await startFaultProxy(database.url)
  service = spawnService({
    DATABASE_URL: proxy.url,
    LOG_FORMAT: "json",
    CACHE_TTL_SECONDS: "0",
    DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DATABASE_DEADLINE_MARGIN_MS: "3000",
    DATABASE_ACQUIRE_TIMEOUT_MS: "1000"
  })
  baseUrl = await service.baseUrl(90_000)
  admin = new pg.Client({ connectionString: database.url })
  await admin.connect()
}, 120_000)

afterAll(async () => {
  proxy?.resume()
  await admin?.end()
  service?.process.kill()
  await service?.exited
  proxy?.stop()
  await database?.drop()
})

/** The service's line about the request that answered with `reply` (by the trace id its traceparent carries). */
const lineOf = async (reply: Awaited<ReturnType<typeof request>>) => {
  const traceId = reply.headers.get("traceparent")!.split("-")[1]
  await service.waitForLine(new RegExp(`"request failed".*"${traceId}"|"${traceId}".*"request failed"`), 10_000)
  return service.stdout().split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as JsonLine)
    .find((line) => line.message === "request failed" && line["trace_id"] === traceId)!
}

const expectAway = async (reply: Awaited<ReturnType<typeof request>>) => {
  expect(reply.status).toBe(503)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("internal_error")
  const line = await lineOf(reply)
  expect(line).toMatchObject({ level: "ERROR" })
  expect(line["reason"]).toMatch(/^database unavailable: /)
  expect(line).not.toHaveProperty("exception.stacktrace")
}

/** `genres` locked by the test's own connection: a read of it waits until PostgreSQL cancels it. */
const withGenresLocked = async <A>(body: () => Promise<A>) => {
  await admin.query("BEGIN")
  await admin.query("LOCK TABLE genres IN ACCESS EXCLUSIVE MODE")
  try {
    return await body()
  } finally {
    await admin.query("ROLLBACK")
  }
}

describeWhen(onPostgres, ON_POSTGRES_ONLY)("a database failure, by its reason", () => {
  test("a statement PostgreSQL cancels at its timeout (57014) answers the 503 envelope", async () => {
    expect((await request(baseUrl, "/v1/genres")).status).toBe(200)
    const started = performance.now()
    const reply = await withGenresLocked(() => request(baseUrl, "/v1/genres"))
    // PostgreSQL's cancel, not the runner's deadline (statement timeout + 3000 ms)
    expect(performance.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + 2500)
    await expectAway(reply)
  }, 30_000)

  test("a connection lost under a statement answers the 503 envelope", async () => {
    const reply = await withGenresLocked(async () => {
      const answered = request(baseUrl, "/v1/genres")
      await Bun.sleep(300)
      proxy.drop()
      return answered
    })
    await expectAway(reply)
    proxy.resume()
  }, 30_000)

  test("a refused connection answers the 503 envelope", async () => {
    proxy.drop()
    try {
      await expectAway(await request(baseUrl, "/v1/genres"))
    } finally {
      proxy.resume()
    }
  }, 30_000)

  test("any other SQL error (a statement broken by the schema under it) is a 500, logged as a bug with its cause", async () => {
    await admin.query("ALTER TABLE genres RENAME TO genres_gone")
    try {
      const reply = await request(baseUrl, "/v1/genres")
      expect(reply.status).toBe(500)
      expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("internal_error")
      const line = await lineOf(reply)
      expect(line).toMatchObject({ level: "ERROR" })
      expect(line).not.toHaveProperty("reason")
      // the SqlError, its reason and the driver's error under it, for the operator
      expect(line["exception.type"]).toBe("effect/sql/SqlError")
      expect(String(line["exception.stacktrace"])).toContain("SqlSyntaxError")
      expect(String(line["exception.stacktrace"])).toContain('relation "genres" does not exist')
    } finally {
      await admin.query("ALTER TABLE genres_gone RENAME TO genres")
    }
    expect((await request(baseUrl, "/v1/genres")).status).toBe(200)
  }, 30_000)
})
