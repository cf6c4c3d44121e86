import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as SqlClient from "effect/sql/SqlClient"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import pg from "pg"
import { DatabaseReady } from "../../src/App.js"
import { AppConfig } from "../../src/Config.js"
import { takePidLock } from "../../src/PidLock.js"
import {
  databaseEnv,
  embeddedDatabase,
  isAlive,
  nameOf,
  postgresDatabase,
  type PostgresDatabase,
  type TestDatabase,
  testServerUrl,
  type TestServerUrl
} from "./database.js"
import { TEST_ENV } from "./env.js"
import { FIXTURE_DIR, loadFixture } from "./fixture.js"

/**
 * The run's two template databases, from which each test file's own database is copied:
 * - schema: sql/ applied by the service's own start-up (DatabaseReady), no rows;
 * - fixture: that, with the fixture (test/fixture/*.sql) loaded.
 * On PostgreSQL they are databases (`CREATE DATABASE ... TEMPLATE`), on the embedded database
 * closed data directories (copied). Their names carry a digest of everything they are made from,
 * so a run never uses a stale one and reuses a current one; a template of another digest is
 * dropped when no run uses it.
 */
export type Templates =
  | { readonly kind: "postgres"; readonly serverUrl: string; readonly schema: string; readonly fixture: string }
  | { readonly kind: "embedded"; readonly schema: string; readonly fixture: string }

export type Prepared = { readonly templates: Templates; readonly made: boolean; readonly ms: number }

/** Set by test/run.ts for the `bun test` it starts: the templates it prepared (JSON of Templates). */
export const TEMPLATES_ENV = "CATALOGUE_TEST_TEMPLATES"

const ROOT = resolve(import.meta.dir, "../..")
/** What the templates are made from: the schema, the code that applies it, the fixture, the locked dependencies (PGlite's version among them). */
const SOURCES = ["sql", "src/Database", "src/Database.ts", relative(ROOT, FIXTURE_DIR), "bun.lock"]

const filesUnder = (path: string): ReadonlyArray<string> =>
  statSync(path).isDirectory()
    ? readdirSync(path).sort().flatMap((name) => filesUnder(join(path, name)))
    : [path]

/**
 * A digest of every source file, its path and text, and of the database's date: the fixture has
 * rows dated from the day it is loaded (released five days ago, on this day in 2001, published in
 * seven days), so a template serves the day it was made on and no other.
 */
export const templateDigest = (kind: Templates["kind"], today: string) => {
  const hash = createHash("sha256").update(kind).update(today)
  for (const file of SOURCES.flatMap((source) => filesUnder(join(ROOT, source)))) {
    hash.update(relative(ROOT, file)).update("\0").update(readFileSync(file)).update("\0")
  }
  return hash.digest("hex").slice(0, 16)
}

/** Migrates `database` as the service does when it starts, then loads the fixture when asked; closes it. */
const fill = (database: TestDatabase, withFixture: boolean) =>
  Effect.runPromise(
    Effect.gen(function*() {
      if (withFixture) yield* loadFixture(yield* SqlClient.SqlClient)
    }).pipe(
      Effect.provide(DatabaseReady.pipe(
        Layer.provide(AppConfig.layer),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...TEST_ENV, ...databaseEnv(database) } })))
      )),
      Effect.provideService(References.MinimumLogLevel, "Warn")
    )
  )

/** A database whose last connection just closed may still be counted as in use for a moment. */
const whenUnused = async <A>(attempt: () => Promise<A>): Promise<A> => {
  for (let tries = 0;; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (tries === 50 || !/being accessed by other users/.test(String(error))) throw error
      await Bun.sleep(100)
    }
  }
}

// Advisory lock classes (the two-key form): a run holds IN_USE shared on its digest for its whole
// life; a template of another digest is dropped only when IN_USE can be taken exclusively.
const IN_USE = 4_600_001
const BUILDING = 4_600_002
const lockKey = (digest: string) => Number.parseInt(digest.slice(0, 7), 16)

const preparePostgres = async (serverUrl: string): Promise<Prepared> => {
  const started = Date.now()
  // held until this process ends; it must not keep the process alive
  const holder = new pg.Client({ connectionString: serverUrl })
  await holder.connect()
  holder.on("error", () => undefined)
  ;(holder as unknown as { connection: { stream: { unref?: () => void } } }).connection.stream.unref?.()
  const [{ today }] = (await holder.query("SELECT current_date::text AS today")).rows as [{ today: string }]
  const digest = templateDigest("postgres", today)
  const names = { schema: `catalogue_template_${digest}_schema`, fixture: `catalogue_template_${digest}_fixture` }
  await holder.query("SELECT pg_advisory_lock_shared($1, $2)", [IN_USE, lockKey(digest)])
  await holder.query("SELECT pg_advisory_lock($1, $2)", [BUILDING, lockKey(digest)])
  try {
    const exists = async (name: string) =>
      (await holder.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1
    const made = !(await exists(names.fixture))
    if (made) {
      const publish = (database: PostgresDatabase, name: string) =>
        whenUnused(() => holder.query(`ALTER DATABASE "${nameOf(database)}" RENAME TO "${name}"`))
      await holder.query(`DROP DATABASE IF EXISTS "${names.schema}" WITH (FORCE)`)
      const schema = await postgresDatabase(serverUrl)
      await fill(schema, false)
      await publish(schema, names.schema)
      const fixture = await whenUnused(() => postgresDatabase(serverUrl, names.schema))
      await fill(fixture, true)
      await publish(fixture, names.fixture)
    }
    const others = await holder.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'catalogue_template_%' AND datname NOT LIKE $1",
      [`catalogue_template_${digest}_%`]
    )
    for (const { datname } of others.rows) {
      const other = lockKey(/^catalogue_template_([0-9a-f]+)_/.exec(datname)?.[1] ?? "0")
      const [{ free }] = (await holder.query("SELECT pg_try_advisory_lock($1, $2) AS free", [IN_USE, other])).rows as [{ free: boolean }]
      if (!free) continue
      await holder.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
      await holder.query("SELECT pg_advisory_unlock($1, $2)", [IN_USE, other])
    }
    return { templates: { kind: "postgres", serverUrl, ...names }, made, ms: Date.now() - started }
  } finally {
    await holder.query("SELECT pg_advisory_unlock($1, $2)", [BUILDING, lockKey(digest)])
  }
}

/** The embedded templates live here, one directory per digest, beside `<digest>.<pid>`: the runs using it. */
const EMBEDDED_ROOT = join(tmpdir(), "catalogue-templates")

/** One process at a time prepares: marks its digest in use, builds it if missing, drops unused others. */
const underEmbeddedLock = async <A>(use: () => Promise<A>): Promise<A> => {
  mkdirSync(EMBEDDED_ROOT, { recursive: true })
  const lock = join(EMBEDDED_ROOT, "lock")
  while (takePidLock(lock) !== undefined) await Bun.sleep(200)
  try {
    return await use()
  } finally {
    rmSync(lock, { force: true })
  }
}

const prepareEmbedded = (): Promise<Prepared> =>
  underEmbeddedLock(async () => {
    const started = Date.now()
    // PGlite's time zone is UTC
    const digest = templateDigest("embedded", new Date().toISOString().slice(0, 10))
    const dir = join(EMBEDDED_ROOT, digest)
    const marker = join(EMBEDDED_ROOT, `${digest}.${process.pid}`)
    writeFileSync(marker, "")
    process.once("exit", () => rmSync(marker, { force: true }))
    const templates = { kind: "embedded", schema: join(dir, "schema"), fixture: join(dir, "fixture") } as const
    const made = !existsSync(templates.fixture)
    if (made) {
      rmSync(dir, { recursive: true, force: true })
      const schema = embeddedDatabase()
      await fill(schema, false)
      const fixture = embeddedDatabase(schema.dataDir)
      await fill(fixture, true)
      mkdirSync(dir)
      renameSync(schema.dataDir, templates.schema)
      renameSync(fixture.dataDir, templates.fixture)
    }
    const entries = readdirSync(EMBEDDED_ROOT)
    const used = new Set(
      entries.flatMap((name) => {
        const [, key, pid] = /^([0-9a-f]+)\.(\d+)$/.exec(name) ?? []
        if (key === undefined) return []
        if (isAlive(Number(pid))) return [key]
        rmSync(join(EMBEDDED_ROOT, name), { force: true })
        return []
      })
    )
    for (const name of entries) {
      if (/^[0-9a-f]+$/.test(name) && !used.has(name)) rmSync(join(EMBEDDED_ROOT, name), { recursive: true, force: true })
    }
    return { templates, made, ms: Date.now() - started }
  })

/** Makes (or finds current) the templates for this process's run and holds them until it ends. */
export const prepareTemplates = async (serverUrl?: TestServerUrl): Promise<Prepared> => {
  const url = serverUrl ?? (await testServerUrl())
  return url === undefined ? prepareEmbedded() : preparePostgres(url)
}

let prepared: Promise<Templates> | undefined

/** The run's templates: those test/run.ts prepared, else prepared here once for this process. */
export const templates = (): Promise<Templates> => {
  const passed = process.env[TEMPLATES_ENV]
  prepared ??= passed ? Promise.resolve(JSON.parse(passed) as Templates) : prepareTemplates().then((done) => done.templates)
  return prepared
}

const copyOf = async (which: "schema" | "fixture"): Promise<TestDatabase> => {
  const made = await templates()
  return made.kind === "postgres"
    ? postgresDatabase(made.serverUrl, made[which])
    : embeddedDatabase(made[which])
}

/** A database of its own with the schema applied and the fixture loaded: what most tests start from. */
export const fixtureDatabase = () => copyOf("fixture")

/** A database of its own with the schema applied and no rows (what a new deployment starts from). */
export const migratedDatabase = () => copyOf("schema")
