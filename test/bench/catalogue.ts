/**
 * The bench catalogue: a PostgreSQL database migrated and seeded with the demo catalogue of
 * `songs` songs. A database whose comment says it was seeded completely with that size is
 * reused; anything else under that name is dropped and made again.
 */
import { resolve } from "node:path"
import pg from "pg"

const ROOT = resolve(import.meta.dir, "../..")

const markerOf = (songs: number) => `catalogue bench: ${songs} songs, seed 1, complete`

const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const databaseUrlOf = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const run = async (command: Array<string>, env: Record<string, string>, quiet: boolean) => {
  const child = Bun.spawn(command, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: quiet ? "pipe" : "inherit",
    stderr: quiet ? "pipe" : "inherit"
  })
  const code = await child.exited
  if (code !== 0) {
    const output = quiet ? `${await new Response(child.stdout).text()}${await new Response(child.stderr).text()}` : ""
    throw new Error(`${command.join(" ")} exited with ${code}\n${output}`)
  }
}

export interface BenchCatalogue {
  readonly url: string
  readonly reused: boolean
  readonly drop: () => Promise<void>
}

/** `serverUrl` is any database on the server (used to create and drop `name`). */
export const ensureCatalogue = async (
  serverUrl: string,
  name: string,
  songs: number,
  options: { readonly quiet: boolean; readonly log: (line: string) => void }
): Promise<BenchCatalogue> => {
  const quoted = `"${name.replace(/"/g, "")}"`
  const existing = await withClient(serverUrl, async (client) =>
    (await client.query<{ comment: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [name]
    )).rows[0]
  )
  const url = databaseUrlOf(serverUrl, name)
  const drop = () => withClient(serverUrl, async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`)))
  const create = async () => {
    await drop()
    await withClient(serverUrl, async (client) => void (await client.query(`CREATE DATABASE ${quoted}`)))
  }
  const migrate = () => run(["bun", "src/migrate.ts"], { DATABASE_URL: url, LOG_LEVEL: "warn" }, true)
  let reused = existing?.comment === markerOf(songs)
  if (!reused) {
    if (existing !== undefined) options.log(`database ${name} is not a complete ${songs}-song catalogue: making it again`)
    await create()
  }
  // Always: the schema is brought up to date before the servers start. A catalogue the schema
  // refuses (made by an older layout, or a table file changed since) is made again.
  try {
    await migrate()
  } catch (error) {
    if (!reused) throw error
    options.log(`the schema refuses the kept ${name} (${firstLine(error)}): making it again`)
    reused = false
    await create()
    await migrate()
  }
  if (!reused) {
    const started = performance.now()
    options.log(`seeding ${songs} songs into ${name} (once; later runs reuse it)`)
    await run(["bun", "src/Seed/cli.ts", "--songs", String(songs)], { DATABASE_URL: url }, options.quiet)
    await withClient(url, async (client) => {
      await client.query("ANALYZE")
      await client.query(`COMMENT ON DATABASE ${quoted} IS '${markerOf(songs)}'`)
    })
    options.log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  }
  return { url, reused, drop }
}

/** The innermost error line of a child's output, e.g. `error: relation "x" does not exist` or `cannot start: ...`. */
const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split("\n").findLast((line) => /error: |cannot start: /i.test(line))?.trim() ?? "error"

/** Reads a few columns out of the catalogue (ids, names for search queries). */
export const queryColumn = (url: string, text: string): Promise<Array<string>> =>
  withClient(url, async (client) => (await client.query<{ v: unknown }>(text)).rows.map((row) => String(row.v)))

export const serverVersion = (url: string): Promise<string> =>
  withClient(url, async (client) => String((await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "?"))

/** An existing catalogue database `name` on the server of `serverUrl`, used as it is: migrated, never seeded. Its URL. */
export const migrateExisting = async (serverUrl: string, name: string, log: (line: string) => void): Promise<string> => {
  const target = new URL(serverUrl)
  target.pathname = `/${name}`
  const url = target.toString()
  log(`migrating ${name} (used as it is, never seeded)`)
  const child = Bun.spawn(["bun", "src/migrate.ts"], {
    cwd: ROOT, env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: "warn" }, stdout: "inherit", stderr: "inherit"
  })
  if (await child.exited !== 0) throw new Error(`migrating ${name} failed`)
  return url
}
