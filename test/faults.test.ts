import { afterAll, beforeAll, expect, test } from "bun:test"
import { onPostgres, type TestDatabase } from "./support/database.js"
import { describeWhen, ON_POSTGRES_ONLY } from "./support/skips.js"
import * as SqlError from "effect/sql/SqlError"
import { causeOf, sqlError } from "../src/Database/Faults.js"
import { DatabaseFault, isDatabaseUnavailable } from "../src/Database.js"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { READY_PROBE_INTERVAL_MS } from "../src/Meta/Http.js"
import { fixtureDatabase } from "./support/template.js"
import { decodeWith } from "./support/http.js"
import { type FaultProxy, startFaultProxy } from "./support/proxy.js"
import { startServer, type TestServer } from "./support/server.js"

/** Short settings keep the test fast; the bounds scale with them. */
const STATEMENT_TIMEOUT_MS = 1000
const MARGIN_MS = 1000
const ACQUIRE_MS = 1000
const POOL_SIZE = 4
/** What a loaded 2-core machine adds to a bound before a request is answered. */
const SLACK_MS = 1500

const PATHS = [
  "/v1/songs",
  "/v1/songs/1",
  "/v1/albums",
  "/v1/artists?sort=songs",
  "/v1/search?q=lagu",
  "/v1/genres",
  "/v1/labels",
  "/v1/users"
]

interface Timed {
  readonly path: string
  readonly status: number
  readonly body: unknown
  readonly ms: number
}

/** One request with its time; a request left without a response fails the test (status 0). */
const timed = async (baseUrl: string, path: string): Promise<Timed> => {
  const started = performance.now()
  try {
    const response = await fetch(baseUrl + path, { signal: AbortSignal.timeout(15_000) })
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
    return { path, status: response.status, body, ms: performance.now() - started }
  } catch (error) {
    return { path, status: 0, body: String(error), ms: performance.now() - started }
  }
}

const burst = (baseUrl: string, count: number) =>
  Promise.all(Array.from({ length: count }, (_, i) => timed(baseUrl, PATHS[i % PATHS.length]!)))

const expectUnavailable = (replies: ReadonlyArray<Timed>) => {
  for (const reply of replies) {
    expect({ path: reply.path, status: reply.status }).toEqual({ path: reply.path, status: 503 })
    expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("internal_error")
  }
}

/** Milliseconds until `path` answers 200 again, polling every 50 ms. */
const timeToRecover = async (baseUrl: string, path = "/v1/songs", limitMs = 10_000) => {
  const started = performance.now()
  while (performance.now() - started < limitMs) {
    const reply = await timed(baseUrl, path)
    if (reply.status === 200) return performance.now() - started
    await Bun.sleep(50)
  }
  return Number.POSITIVE_INFINITY
}

const maxMs = (replies: ReadonlyArray<Timed>) => Math.round(Math.max(...replies.map((reply) => reply.ms)))

/** The SqlError a statement on the service's own pool fails with. */
/** A SqlError as Effect 3 shaped it, its `cause` the error under it. */
type ShapedAsBefore = SqlError.SqlError & { readonly cause: any }

const failureOf = async (statement: Promise<unknown>): Promise<ShapedAsBefore> => {
  try {
    await statement
  } catch (error) {
    // as Effect 3 shaped it: the SqlError's cause is the error under it (Effect 4 puts a reason between)
    if (SqlError.isSqlError(error)) return Object.create(error, { cause: { value: causeOf(error) } }) as ShapedAsBefore
    throw error
  }
  throw new Error("the statement succeeded")
}

let database: TestDatabase
let proxy: FaultProxy
let server: TestServer
const figures: Array<string> = []

beforeAll(async () => {
  database = await fixtureDatabase()
  if (database.kind !== "postgres") return
  proxy = await startFaultProxy(database.url)
  server = await startServer({
    database,
    env: {
      DATABASE_URL: proxy.url,
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_DEADLINE_MARGIN_MS: String(MARGIN_MS),
      DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS),
      // every failed request logs at ERROR (the pipeline's policy): not wanted in the test output
      LOG_LEVEL: "none"
    }
  })
}, 60_000)

afterAll(async () => {
  proxy?.resume()
  await server?.stop()
  proxy?.stop()
  await database?.drop()
  if (figures.length > 0) console.log(`faults: ${figures.join("; ")}`)
})

describeWhen(onPostgres, ON_POSTGRES_ONLY)("the database in the way (a TCP proxy)", () => {
  test("frozen: every request, more than the pool holds, gets a 503 envelope within the bounds", async () => {
    expect((await burst(server.baseUrl, PATHS.length)).map((reply) => reply.status)).toEqual(PATHS.map(() => 200))
    proxy.pause()
    try {
      // three times the pool: some hold a connection whose query hangs, the rest wait for one
      const replies = await burst(server.baseUrl, POOL_SIZE * 3)
      expectUnavailable(replies)
      const bound = ACQUIRE_MS + STATEMENT_TIMEOUT_MS + MARGIN_MS + SLACK_MS
      expect(maxMs(replies)).toBeLessThan(bound)
      figures.push(`frozen: ${replies.length} requests -> 503 in ${maxMs(replies)} ms at most`)

      const ready = await timed(server.baseUrl, "/v1/health/ready")
      expect(ready.status).toBe(503)
      expect(decodeWith(ErrorEnvelope, ready.body).error.code).toBe("internal_error")
      expect(ready.ms).toBeLessThan(1000 + SLACK_MS)
      figures.push(`ready while frozen: 503 in ${Math.round(ready.ms)} ms`)
    } finally {
      proxy.resume()
    }
  }, 30_000)

  test("after a freeze: 200 again within 2 s, and at full speed (every pooled connection usable)", async () => {
    proxy.pause()
    await burst(server.baseUrl, POOL_SIZE * 2)
    proxy.resume()
    const recovered = await timeToRecover(server.baseUrl)
    expect(recovered).toBeLessThan(2000)
    const replies = await burst(server.baseUrl, POOL_SIZE * 4)
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200))
    figures.push(`frozen -> resumed: 200 after ${Math.round(recovered)} ms, then ${replies.length}/${replies.length} 200 in ${maxMs(replies)} ms`)
  }, 30_000)

  test("refused (stopped): 503 envelopes fast, then 200 within 2 s of its return", async () => {
    proxy.drop()
    try {
      const replies = await burst(server.baseUrl, POOL_SIZE * 3)
      expectUnavailable(replies)
      expect(maxMs(replies)).toBeLessThan(ACQUIRE_MS + SLACK_MS)
      figures.push(`refused: ${replies.length} requests -> 503 in ${maxMs(replies)} ms at most`)
      const ready = await timed(server.baseUrl, "/v1/health/ready")
      expect(ready.status).toBe(503)
    } finally {
      proxy.resume()
    }
    const recovered = await timeToRecover(server.baseUrl)
    expect(recovered).toBeLessThan(2000)
    const replies = await burst(server.baseUrl, POOL_SIZE * 4)
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200))
    figures.push(`refused -> resumed: 200 after ${Math.round(recovered)} ms`)
  }, 30_000)

  test("readiness asks the database at most once a second, however often it is asked", async () => {
    await Bun.sleep(READY_PROBE_INTERVAL_MS + 100) // past the verdict of the tests before
    const stopWatching = proxy.watch()
    const startedAt = performance.now()
    const replies: Array<{ status: number }> = []
    for (let round = 0; round < 8; round++) {
      replies.push(...(await Promise.all(Array.from({ length: 25 }, () => timed(server.baseUrl, "/v1/health/ready")))))
      await Bun.sleep(200)
    }
    const elapsedMs = performance.now() - startedAt
    const probes = stopWatching().split("SELECT 1\u0000").length - 1
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200))
    expect(probes).toBeGreaterThanOrEqual(1)
    expect(probes).toBeLessThanOrEqual(Math.ceil(elapsedMs / READY_PROBE_INTERVAL_MS) + 1)
    figures.push(`readiness: ${replies.length} requests in ${Math.round(elapsedMs)} ms -> ${probes} database probes`)
  }, 30_000)

  test("isDatabaseUnavailable reads codes only, never a message", () => {
    const lostText = new Error("Connection terminated unexpectedly")
    expect(isDatabaseUnavailable(sqlError(lostText, "Connection terminated"))).toBe(false)
    for (const code of ["57P01", "08006", "ECONNRESET", "DATABASE_FAULT"]) {
      expect(isDatabaseUnavailable(sqlError(Object.assign(new Error("x"), { code })))).toBe(true)
    }
    expect(isDatabaseUnavailable(sqlError(Object.assign(new Error("x"), { code: "22012" })))).toBe(false)
  })

  test("every SqlError of ours carries its reason, told by code", () => {
    const reasonFor = (cause: unknown): string => sqlError(cause).reason._tag
    const coded = (code: string) => Object.assign(new Error("x"), { code })
    const expected: ReadonlyArray<readonly [unknown, string]> = [
      [coded("08006"), "ConnectionError"],
      [coded("57P01"), "ConnectionError"],
      [coded("53300"), "ConnectionError"],
      [coded("ECONNREFUSED"), "ConnectionError"],
      [new DatabaseFault("connect", 0, { cause: coded("ECONNREFUSED") }), "ConnectionError"],
      [new DatabaseFault("lost", 0, { cause: new Error("Connection terminated unexpectedly") }), "ConnectionError"],
      [new DatabaseFault("acquire", 1000), "ConnectionError"],
      [new DatabaseFault("query", 1000), "StatementTimeoutError"],
      [coded("57014"), "StatementTimeoutError"],
      [coded("40001"), "SerializationError"],
      [coded("40P01"), "DeadlockError"],
      [coded("55P03"), "LockTimeoutError"],
      [coded("28P01"), "AuthenticationError"],
      [coded("42501"), "AuthorizationError"],
      [coded("42P01"), "SqlSyntaxError"],
      [coded("23505"), "UniqueViolation"],
      [coded("23503"), "ConstraintError"],
      [coded("22012"), "UnknownError"],
      [new Error("Connection terminated unexpectedly"), "UnknownError"]
    ]
    expect(expected.map(([cause]) => reasonFor(cause))).toEqual(expected.map(([, reason]) => reason))
  })

  test("isDatabaseUnavailable tells each fault by its code, and a statement's own error from them", async () => {
    expect(isDatabaseUnavailable(await failureOf(server.sql("SELECT 1/0")))).toBe(false)
    expect(isDatabaseUnavailable(await failureOf(server.sql("SELECT * FROM no_such_table")))).toBe(false)

    proxy.pause()
    const hung = await failureOf(server.sql("SELECT 1"))
    expect(hung.cause).toBeInstanceOf(DatabaseFault)
    expect((hung.cause as DatabaseFault).kind).toBe("query")
    expect(isDatabaseUnavailable(hung)).toBe(true)
    expect(hung.reason._tag).toBe("StatementTimeoutError")
    proxy.resume()
    expect(await timeToRecover(server.baseUrl)).toBeLessThan(2000)

    // a connection closed under a running statement: pg's own error has no code, the runner's fault has
    const cut = failureOf(server.sql("SELECT pg_sleep(0.8)"))
    await Bun.sleep(300)
    proxy.drop()
    const lost = await cut
    expect(lost.cause).toBeInstanceOf(DatabaseFault)
    expect((lost.cause as DatabaseFault).kind).toBe("lost")
    expect(((lost.cause as DatabaseFault).cause as { code?: unknown }).code).toBeUndefined()
    expect(isDatabaseUnavailable(lost)).toBe(true)
    expect(lost.reason._tag).toBe("ConnectionError")

    await Bun.sleep(200)
    const refused = await failureOf(server.sql("SELECT 3"))
    expect(refused.cause).toBeInstanceOf(DatabaseFault)
    expect((refused.cause as DatabaseFault).kind).toBe("connect")
    expect(((refused.cause as DatabaseFault).cause as { code?: unknown }).code).toBe("ECONNREFUSED")
    expect(isDatabaseUnavailable(refused)).toBe(true)
    expect(refused.reason._tag).toBe("ConnectionError")
    proxy.resume()
    expect(await timeToRecover(server.baseUrl)).toBeLessThan(2000)
  }, 30_000)
})
