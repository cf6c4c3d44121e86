import { SqlClient } from "effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { AppLive } from "../../src/App.js"
import * as HttpServer from "effect/http/HttpServer"
import { databaseEnv, type TestDatabase } from "./database.js"
import { TEST_ENV } from "./env.js"
import { loadFixture } from "./fixture.js"
import { fixtureDatabase } from "./template.js"

export { TEST_ENV }

export interface TestServer {
  readonly baseUrl: string
  readonly database: TestDatabase
  /** Runs SQL on the server's own database connection (the embedded database allows no other). */
  readonly sql: <A extends object = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<A>>
  readonly stop: () => Promise<void>
  /** stop, then drop the database (a file's own server, in its afterAll) */
  readonly close: () => Promise<void>
}

/**
 * Starts the real service on a free port over `database` (when not given, a copy of the fixture
 * template: test/support/template.ts) and loads the fixture when the database has none (an empty
 * one given); then runs `statements` (a test file's own rows).
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
  const database = options.database ?? (await fixtureDatabase())
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
