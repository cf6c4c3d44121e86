import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { mkdirSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import pg from "pg"
import { AppConfig } from "./Config.js"
import { sqlError } from "./Database/Faults.js"
import { makeRunner, type WaitingBounds } from "./Database/Runner.js"
import { applySchema } from "./Database/Schema.js"
import { makeSqlClient } from "./Database/SqlClient.js"
import { makeStatements, Statements } from "./Database/Statements.js"
import { meterPool } from "./Metrics.js"
import { takePidLock } from "./PidLock.js"

export { DatabaseFault, isDatabaseUnavailable } from "./Database/Faults.js"
export { type Prepared, Statements } from "./Database/Statements.js"

/**
 * A repository's database as one context, its @effect/sql client and the Statements beside it,
 * for what it composes per request (keysetPage): `Effect.provide(database)`.
 */
export const databaseContext = Effect.map(
  Effect.all([SqlClient.SqlClient, Statements]),
  ([sql, statements]) => Context.make(SqlClient.SqlClient, sql).pipe(Context.add(Statements, statements))
)

/** Which database the service runs on; start-up and seeding depend on it. */
export class DatabaseMode extends Context.Service<
  DatabaseMode,
  { readonly kind: "postgres" | "embedded"; readonly description: string }
>()("catalogue/DatabaseMode") {}

/** Session settings every connection starts with; asset_url() reads the CDN base from them. */
export const sessionSettings = (cdnBaseUrl: string, statementTimeoutMs: number) => ({
  statement_timeout: String(Math.trunc(statementTimeoutMs)),
  // JIT compiles big statements (search, aggregates) for 0.4-0.7 s each; our queries are short.
  jit: "off",
  // Parallel workers start (~10-15 ms each time) before a gated-off arm's one-time filter is read,
  // and every statement here is an index range or a bounded collection: none gains from them.
  max_parallel_workers_per_gather: "0",
  // Every statement here is written for its generic plan (run-time gates on kept counts choose the
  // arm, src/Queries/SteeredPage.ts). Left to choose, PostgreSQL planned some for their values at
  // every execution (a list page: ~0.8 ms of planning for ~0.4 of work; a search ~0.5 ms of its
  // ~1.8), and every statement five times on each new connection (docs/query-plans.md).
  plan_cache_mode: "force_generic_plan",
  "catalogue.cdn_base_url": cdnBaseUrl
})

const startupOptions = (settings: Record<string, string>) =>
  Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value.replace(/([\\ ])/g, "\\$1")}`)
    .join(" ")

/** int8 (counts) as JS numbers: every count here fits in 2^53. */
const TYPES = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text")
}

/** What every statement's span says of the database (as @effect/sql-pg's own client would). */
const spanAttributesOf = (options: pg.PoolConfig): ReadonlyArray<readonly [string, unknown]> => {
  const connection = options.connectionString === undefined ? undefined : new URL(options.connectionString)
  return [
    ["db.system.name", "postgresql"],
    ["db.namespace", connection?.pathname.slice(1) || (options.database ?? "postgres")],
    ["server.address", connection?.hostname ?? options.host ?? "localhost"],
    ["server.port", Number(connection?.port || options.port || 5432)]
  ]
}

/** Numbers of our own clients' transaction services, apart from those Effect numbers from 0. */
let nextClientId = 1_000_000

/**
 * The query path over one pool (docs/operations.md): the runner sends every statement, the
 * SqlClient's and the prepared by-key reads' alike. A pool given a name (the requests' pool) has
 * its connections and waits in the metrics under it.
 */
export const queryPathLayer = (options: pg.PoolConfig, bounds?: WaitingBounds, poolName?: string) =>
  Layer.unwrap(
    Effect.gen(function*() {
      const pool = yield* makePool(options)
      const meter = poolName === undefined
        ? undefined
        : yield* Effect.acquireRelease(Effect.sync(() => meterPool(poolName, options.max ?? 10, pool)), (meter) => Effect.sync(meter.close))
      const runner = makeRunner(pool, bounds, meter?.waited)
      const spanAttributes = spanAttributesOf(options)
      // the client's transactions, which the prepared reads must see too (src/Database/Statements.ts)
      const transactions = SqlClient.TransactionConnection(nextClientId++)
      return Layer.merge(
        Layer.effect(SqlClient.SqlClient, makeSqlClient(runner, spanAttributes, transactions)).pipe(Layer.provide(Reactivity.layer)),
        Layer.succeed(Statements, makeStatements(runner, spanAttributes, transactions))
      )
    })
  )

const makePool = (options: pg.PoolConfig) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool({ ...options, types: TYPES })
      // An idle client losing its connection must not crash the process; the next query reconnects.
      pool.on("error", () => undefined)
      return pool
    }),
    (pool) => Effect.promise(() => pool.end().catch(() => undefined))
  )

/** A lock file in the data directory: PGlite has no lock of its own between processes. */
const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        mkdirSync(dataDir, { recursive: true })
        const lockPath = join(dataDir, "catalogue.lock")
        const holder = takePidLock(lockPath)
        if (holder !== undefined) {
          throw new Error(
            `The embedded database in ${dataDir} is in use by process ${holder}. ` +
              "Stop it, or point DATA_DIR at another directory."
          )
        }
        return lockPath
      },
      catch: (cause) => sqlError(cause, cause instanceof Error ? cause.message : String(cause))
    }),
    (lockPath) => Effect.sync(() => rmSync(lockPath, { force: true }))
  )

/** The embedded database in `dataDir` ("memory://" for one in memory), with the extensions the schema needs. */
export const createEmbedded = async (dataDir: string) => {
  const { PGlite } = await import("@electric-sql/pglite")
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm")
  const { unaccent } = await import("@electric-sql/pglite/contrib/unaccent")
  return PGlite.create(dataDir, { extensions: { pg_trgm, unaccent } })
}

const openEmbedded = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => createEmbedded(dataDir),
      catch: (cause) => sqlError(cause, `Could not open the embedded database in ${dataDir}`)
    }),
    (db) => Effect.promise(() => db.close().catch(() => undefined))
  )

const postgresLayer = (url: Redacted.Redacted<string>) =>
  Layer.unwrap(
    AppConfig.useSync((config) =>
      queryPathLayer(
        {
          connectionString: Redacted.value(url),
          max: config.databasePoolSize,
          // also ends a connection attempt the server never answers
          connectionTimeoutMillis: config.databaseAcquireTimeoutMs,
          idleTimeoutMillis: 30_000,
          options: startupOptions(sessionSettings(config.cdnBaseUrl, config.databaseStatementTimeoutMs))
        },
        {
          acquireMs: config.databaseAcquireTimeoutMs,
          // the server cancels at the statement timeout; past the margin it is not answering at all
          queryMs: config.databaseStatementTimeoutMs + config.databaseDeadlineMarginMs
        },
        // OpenTelemetry's name for a pool without one: server.address:server.port/db.namespace
        describeUrl(url)
      ).pipe(
        Layer.merge(
          Layer.succeed(DatabaseMode, { kind: "postgres", description: `PostgreSQL at ${describeUrl(url)}` })
        )
      )
    )
  )

const embeddedLayer = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const dataDir = resolve(config.dataDir)
    yield* lockDataDir(dataDir)
    const db = yield* openEmbedded(dataDir)
    // One backend, one session: settings made here hold for every query.
    yield* Effect.promise(() =>
      db.query("SELECT set_config(key, value, false) FROM json_each_text($1::json)", [
        JSON.stringify(sessionSettings(config.cdnBaseUrl, config.databaseStatementTimeoutMs))
      ])
    )
    const { createPgConfig } = yield* Effect.promise(() => import("@electric-sql/pglite/node-postgres"))
    // Exactly one connection: PGlite is one backend; more breaks the wire protocol.
    const pgConfig = { ...createPgConfig(db), max: 1, idleTimeoutMillis: 0 } as unknown as pg.PoolConfig
    return queryPathLayer(pgConfig, undefined, "embedded").pipe(
      Layer.merge(Layer.succeed(DatabaseMode, { kind: "embedded", description: `embedded PGlite in ${dataDir}` }))
    )
  })
)

const describeUrl = (url: Redacted.Redacted<string>) => {
  const parsed = new URL(Redacted.value(url))
  return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`
}

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded database in DATA_DIR. */
export const DatabaseLive = Layer.unwrap(
  AppConfig.useSync((config) =>
    Option.match(config.databaseUrl, { onNone: () => embeddedLayer, onSome: postgresLayer })
  )
)

/**
 * The schema brought up to date (src/Database/Schema.ts), on PostgreSQL over a connection of its
 * own without the request bounds: a numbered migration that fills a kept count reads the whole
 * catalogue, past both the statement timeout and the deadline a request gets. Embedded: the one
 * connection.
 */
export const migrate = AppConfig.use((config) =>
  Option.match(config.databaseUrl, {
    onNone: () => applySchema,
    onSome: (url) =>
      applySchema.pipe(
        Effect.provide(queryPathLayer({
          connectionString: Redacted.value(url),
          max: 1,
          // 0: no statement timeout
          options: startupOptions(sessionSettings(config.cdnBaseUrl, 0))
        }))
      )
  }))
