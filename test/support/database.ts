import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

/** Where the tests' database lives: a PostgreSQL database, or an embedded data directory. */
export type TestDatabase =
  | { readonly kind: "postgres"; readonly url: string; readonly drop: () => Promise<void> }
  | { readonly kind: "embedded"; readonly dataDir: string; readonly drop: () => Promise<void> }

export type PostgresDatabase = Extract<TestDatabase, { readonly kind: "postgres" }>
export type EmbeddedDatabase = Extract<TestDatabase, { readonly kind: "embedded" }>

/** The PostgreSQL server the run's databases are made on, or none: the embedded database. */
export type TestServerUrl = string | undefined

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A run's databases are named after its process: `catalogue_test_<pid>_...` and `catalogue-test-<pid>-...`. */
const OWN_PREFIX = `catalogue_test_${process.pid}_`
const ownerOf = (name: string) => Number(/^catalogue[_-]test[_-](\d+)[_-]/.exec(name)?.[1])
const isLeftover = (name: string) => {
  const pid = ownerOf(name)
  return Number.isSafeInteger(pid) && !isAlive(pid)
}
const uniqueSuffix = () => Math.random().toString(36).slice(2, 8)

const dropPostgresLeftovers = async (admin: pg.Client) => {
  const existing = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'catalogue_test_%'")
  for (const { datname } of existing.rows) {
    if (isLeftover(datname)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
  }
}

const dropEmbeddedLeftovers = () => {
  for (const name of readdirSync(tmpdir())) {
    if (name.startsWith("catalogue-test-") && isLeftover(name)) rmSync(join(tmpdir(), name), { recursive: true, force: true })
  }
}

/** Drops the databases of runs whose process is gone (test/run.ts, once its `bun test` exited). */
export const dropLeftovers = (serverUrl: TestServerUrl) =>
  serverUrl === undefined ? Promise.resolve(dropEmbeddedLeftovers()) : withAdmin(serverUrl, dropPostgresLeftovers)

export const withAdmin = async <A>(serverUrl: string, use: (admin: pg.Client) => Promise<A>): Promise<A> => {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    return await use(admin)
  } finally {
    await admin.end()
  }
}

export const urlOf = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

export const nameOf = (database: PostgresDatabase) => new URL(database.url).pathname.slice(1)

/** A database of this run on `serverUrl`, empty or a copy of `template`; leftovers of dead runs are dropped first. */
export const postgresDatabase = (serverUrl: string, template?: string) =>
  withAdmin(serverUrl, async (admin): Promise<PostgresDatabase> => {
    await dropPostgresLeftovers(admin)
    const name = `${OWN_PREFIX}${uniqueSuffix()}`
    await admin.query(`CREATE DATABASE "${name}"${template === undefined ? "" : ` TEMPLATE "${template}"`}`)
    return {
      kind: "postgres",
      url: urlOf(serverUrl, name),
      drop: () => withAdmin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined)
    }
  })

/** An embedded data directory of this run, empty or a copy of the closed data directory `template`. */
export const embeddedDatabase = (template?: string): EmbeddedDatabase => {
  dropEmbeddedLeftovers()
  const dataDir = mkdtempSync(join(tmpdir(), `catalogue-test-${process.pid}-`))
  if (template !== undefined) cpSync(template, dataDir, { recursive: true })
  return { kind: "embedded", dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) }
}

const dockerAnswers = async () => {
  const socket = process.env.DOCKER_HOST ?? "/var/run/docker.sock"
  if (!process.env.DOCKER_HOST && !(await Bun.file(socket).exists())) return false
  try {
    const { getContainerRuntimeClient } = await import("testcontainers")
    await getContainerRuntimeClient()
    return true
  } catch {
    return false
  }
}

let container: Promise<TestServerUrl> | undefined

/**
 * TEST_DATABASE_URL (a real PostgreSQL server) when set; else a throw-away PostgreSQL container
 * when a Docker engine answers, one for the run (test/run.ts passes its URL on as
 * TEST_CONTAINER_URL; testcontainers removes it when the process that started it ends); else
 * none: the embedded database.
 */
export const testServerUrl = (): Promise<TestServerUrl> => {
  const serverUrl = process.env.TEST_DATABASE_URL || process.env.TEST_CONTAINER_URL
  if (serverUrl) return Promise.resolve(serverUrl)
  container ??= dockerAnswers().then(async (answers) => {
    if (!answers) return undefined
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql")
    return (await new PostgreSqlContainer("postgres:15-alpine").start()).getConnectionUri()
  })
  return container
}

/**
 * An empty database, nothing applied: for the tests of the schema's own loading. Most tests want
 * the schema (and the fixture) already there: test/support/template.ts.
 */
export const resolveTestDatabase = async (): Promise<TestDatabase> => {
  const serverUrl = await testServerUrl()
  return serverUrl === undefined ? embeddedDatabase() : postgresDatabase(serverUrl)
}

export const databaseEnv = (database: TestDatabase): Record<string, string> =>
  database.kind === "postgres" ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }

/** Whether the tests run on a PostgreSQL server (TEST_DATABASE_URL), not the embedded database. */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
