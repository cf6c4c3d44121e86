import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { onPostgres } from "./support/database.js"
import { testWhen, ON_POSTGRES_ONLY } from "./support/skips.js"
import pg from "pg"
import { spawnService } from "./support/child.js"
import { databaseEnv, resolveTestDatabase, type TestDatabase } from "./support/database.js"

/**
 * The schema of sql/ as src/Database/Schema.ts applies it (docs/data-model.md): once to an empty
 * database, then only what changed; definitions applied again when their text changes; a
 * database made by the numbered migration chain it replaced, or with a table file changed since,
 * refused at start with one line.
 */

let database: TestDatabase
beforeAll(async () => {
  database = await resolveTestDatabase()
}, 120_000)
afterAll(async () => {
  await database.drop()
})

const sql = async (text: string) => {
  if (database.kind !== "postgres") throw new Error("needs PostgreSQL")
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

/** Runs `bun run migrate` on the test database: its exit code and its output. */
const migrate = async () => {
  const child = Bun.spawn(["bun", "src/migrate.ts"], {
    cwd: `${import.meta.dir}/..`,
    env: { ...process.env, ...databaseEnv(database), LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe"
  })
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, stdout, stderr }
}

const applied = (stdout: string) => /migrations_applied[=:] ?"?([^"\n]*)/.exec(stdout)?.[1]?.trim()

describe("the schema", () => {
  test("applies every file to an empty database, then nothing while nothing changed", async () => {
    const first = await migrate()
    expect(first.code).toBe(0)
    expect(applied(first.stdout)).toMatch(/^schema\/0_computed\.sql,schema\/1_members\.sql,.*definitions\/6_change_feed\.sql,definitions\/7_unchanged_rows\.sql$/)
    const second = await migrate()
    expect(second.code).toBe(0)
    expect(applied(second.stdout)).toBe("none")
  }, 120_000)

  testWhen(onPostgres, ON_POSTGRES_ONLY)("applies a definitions file again when its text changed", async () => {
    await sql("UPDATE schema_history SET checksum = 'changed' WHERE path = 'definitions/2_formats.sql'")
    const again = await migrate()
    expect(again.code).toBe(0)
    expect(applied(again.stdout)).toBe("definitions/2_formats.sql")
    expect(applied((await migrate()).stdout)).toBe("none")
  }, 120_000)

  testWhen(onPostgres, ON_POSTGRES_ONLY)("refuses a database whose applied table file changed since", async () => {
    const [{ checksum }] = await sql("SELECT checksum FROM schema_history WHERE path = 'schema/2_catalogue.sql'")
    await sql("UPDATE schema_history SET checksum = 'changed' WHERE path = 'schema/2_catalogue.sql'")
    try {
      const refused = await migrate()
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim().split("\n")).toEqual([
        "cannot start: database: sql/schema/2_catalogue.sql changed after it was applied to this database: a table change " +
        "is a numbered migration in sql/migrations/ (before the first release: recreate the database)"
      ])
    } finally {
      await sql(`UPDATE schema_history SET checksum = '${checksum}' WHERE path = 'schema/2_catalogue.sql'`)
    }
  }, 120_000)

  testWhen(onPostgres, ON_POSTGRES_ONLY)("refuses a database made by the numbered migrations, saying how to recreate it", async () => {
    await sql("CREATE TABLE schema_migrations (migration_id integer PRIMARY KEY, created_at timestamptz, name text)")
    try {
      const service = spawnService(databaseEnv(database))
      expect(await service.exited).toBe(1)
      const lines = service.stderr().trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^cannot start: database: this database was made by the old numbered migrations .*recreate it/)
    } finally {
      await sql("DROP TABLE schema_migrations")
    }
  }, 120_000)
})
