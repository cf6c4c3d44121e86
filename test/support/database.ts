import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

/** Where the tests' database lives: a fresh PostgreSQL database, or an embedded data directory. */
export type TestDatabase =
  | { readonly kind: "postgres"; readonly url: string; readonly drop: () => Promise<void> }
  | { readonly kind: "embedded"; readonly dataDir: string; readonly drop: () => Promise<void> }

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A fresh database on the server of `serverUrl`, named after this process; leftovers of dead runs are dropped. */
const freshPostgresDatabase = async (serverUrl: string): Promise<TestDatabase> => {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  const existing = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'catalogue_test_%'"
  )
  for (const { datname } of existing.rows) {
    const pid = Number(/^catalogue_test_(\d+)_/.exec(datname)?.[1])
    if (Number.isSafeInteger(pid) && !isAlive(pid)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
  }
  const name = `catalogue_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  await admin.query(`CREATE DATABASE "${name}"`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    kind: "postgres",
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await client.end()
    }
  }
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

/**
 * TEST_DATABASE_URL (a real PostgreSQL) when set; else a throw-away PostgreSQL container
 * when a Docker engine answers; else the embedded database in a temporary directory.
 */
export const resolveTestDatabase = async (): Promise<TestDatabase> => {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (serverUrl) return freshPostgresDatabase(serverUrl)
  if (await dockerAnswers()) {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql")
    const container = await new PostgreSqlContainer("postgres:15-alpine").start()
    const database = await freshPostgresDatabase(container.getConnectionUri())
    return { ...database, drop: async () => void (await container.stop()) }
  }
  const dataDir = mkdtempSync(join(tmpdir(), "catalogue-test-"))
  return { kind: "embedded", dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) }
}

export const databaseEnv = (database: TestDatabase): Record<string, string> =>
  database.kind === "postgres" ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }

/** Whether the tests run on a PostgreSQL server (TEST_DATABASE_URL), not the embedded database. */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
