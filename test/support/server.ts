import { SqlClient } from "effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { AppLive } from "../../src/App.js"
import { databaseEnv, resolveTestDatabase, type TestDatabase } from "./database.js"
import * as HttpServer from "effect/http/HttpServer"

const FIXTURE_DIR = resolve(import.meta.dir, "../fixture")

/** Settings every test server starts with; a test passes its own on top. */
export const TEST_ENV: Readonly<Record<string, string>> = {
  PORT: "0",
  LOG_LEVEL: "warn",
  DEMO_SEED_SONGS: "0",
  // no snapshot written in the background by every test server (test/snapshots.test.ts turns it on)
  SNAPSHOT_INTERVAL_HOURS: "0",
  CDN_BASE_URL: "https://cdn.test.example",
  // Every group's tests share one server from 127.0.0.1: no rate limit to speak of (nor a bound on
  // its requests in flight), no response cache (tests change rows under it). The edge's own tests
  // start servers with the real settings.
  RATE_LIMIT_CAPACITY: "1000000",
  RATE_LIMIT_WINDOW_SECONDS: "1000000",
  RATE_LIMIT_MAX_IN_FLIGHT: "1000000",
  CACHE_TTL_SECONDS: "0",
  // The test process holds many servers and the test runner: the service's memory guard is not for it.
  MEMORY_LIMIT_MIB: "0",
  // Staff tokens in tests are minted with this secret (test/support/tokens.ts).
  ADMIN_JWT_SECRET: "test-secret-for-staff-tokens-0123456789abcdef"
}

export interface TestServer {
  readonly baseUrl: string
  readonly database: TestDatabase
  /** Runs SQL on the server's own database connection (the embedded database allows no other). */
  readonly sql: <A extends object = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<A>>
  readonly stop: () => Promise<void>
  /** stop, then drop the database (a file's own server, in its afterAll) */
  readonly close: () => Promise<void>
}

const loadFixture = (sql: SqlClient.SqlClient) =>
  Effect.forEach(
    readdirSync(FIXTURE_DIR).filter((file) => file.endsWith(".sql")).sort(),
    (file) => sql.unsafe(readFileSync(join(FIXTURE_DIR, file), "utf8")).raw,
    { discard: true }
  )

/**
 * Starts the real service on a free port over `database` (a fresh one when not given) and
 * loads the fixture when the database is empty; then runs `statements` (a test file's own rows).
 */
export const startServer = async (
  options: {
    readonly env?: Record<string, string>
    readonly database?: TestDatabase
    readonly statements?: ReadonlyArray<string>
    /** services set for this server alone (References such as FrontDoorEnabled) */
    readonly layer?: Layer.Layer<never>
  } = {}
): Promise<TestServer> => {
  const database = options.database ?? (await resolveTestDatabase())
  const env = { ...TEST_ENV, ...databaseEnv(database), ...options.env }
  const runtime = ManagedRuntime.make(
    AppLive.pipe(Layer.provide(Layer.merge(ConfigProvider.layer(ConfigProvider.fromEnv({ env: env })), options.layer ?? Layer.empty)))
  )
  const { port, sql } = await runtime.runPromise(
    Effect.gen(function*() {
      const { address } = yield* HttpServer.HttpServer
      const sql = yield* SqlClient.SqlClient
      const [{ count }] = (yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM roles`) as [{ count: number }]
      if (count === 0) yield* loadFixture(sql)
      return { port: (address as { readonly port: number }).port, sql }
    })
  )
  for (const text of options.statements ?? []) await runtime.runPromise(sql.unsafe(text))
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    database,
    sql: (text, params = []) => runtime.runPromise(sql.unsafe(text, params)) as never,
    stop: () => runtime.dispose(),
    close: () => runtime.dispose().then(database.drop)
  }
}

let shared: Promise<TestServer> | undefined

/** One server over one fixture database for the whole test run (bun test runs files in one process). */
export const sharedServer = (): Promise<TestServer> => {
  shared ??= startServer().then((server) => {
    process.once("beforeExit", () => void server.stop().then(server.database.drop))
    return server
  })
  return shared
}
