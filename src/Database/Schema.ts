import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { sqlError } from "./Faults.js"

/**
 * The schema in sql/ (docs/data-model.md):
 * - schema/: the tables and indexes, by concern, applied once to an empty database in name order;
 * - migrations/NNNN_name.sql: table changes after the first release, each applied once, in order;
 * - definitions/: every view, function and trigger, by concern, applied again whenever the file's
 *   text changes (the repeatable migrations of Flyway).
 * schema_history keeps each file's checksum. All of it runs in one transaction.
 */
export const SQL_DIR = resolve(import.meta.dir, "../../sql")

export type SchemaFile = { readonly path: string; readonly text: string; readonly checksum: string }

/**
 * What a file's checksum is taken over. A table file's comments and layout may be edited without
 * touching an applied database (its checksum ignores them); a definitions file is applied again
 * on any edit, so that the bodies' own comments stay as written.
 */
const checksummed = (folder: string, text: string) =>
  folder === "definitions" ? text : text.replace(/--[^\n]*/g, "").replace(/\s+/g, " ").trim()

const filesIn = (folder: string, pattern: RegExp): ReadonlyArray<SchemaFile> => {
  const dir = join(SQL_DIR, folder)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => pattern.test(name))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((name) => {
      const text = readFileSync(join(dir, name), "utf8")
      return { path: `${folder}/${name}`, text, checksum: createHash("sha256").update(checksummed(folder, text)).digest("hex") }
    })
}

export const schemaFiles = () => ({
  tables: filesIn("schema", /^\d+_[\w-]+\.sql$/),
  migrations: filesIn("migrations", /^\d{4}_[\w-]+\.sql$/),
  definitions: filesIn("definitions", /^\d+_[\w-]+\.sql$/)
})

const refuse = (message: string) => sqlError(new Error(message), message)

/**
 * Brings the database's schema up to date; the files applied, in order (none when it was).
 * Refuses a database made by the numbered migration chain this layout replaced (its table
 * schema_migrations), and one whose applied table files have since changed.
 */
export const applySchema = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const files = schemaFiles()
  return yield* sql.withTransaction(Effect.gen(function*() {
    // one process at a time; the others wait, then find nothing left to do
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('catalogue schema'))`
    const [old] = yield* sql<{ readonly chain: boolean }>`SELECT to_regclass('public.schema_migrations') IS NOT NULL AS chain`
    if (old?.chain === true) {
      return yield* refuse(
        "this database was made by the old numbered migrations (its table schema_migrations lists 0001 and on), " +
          "which the schema in sql/ replaces: recreate it (dropdb and createdb, or an empty DATA_DIR for the embedded " +
          "database), then start again and seed it (bun run seed)"
      )
    }
    yield* sql`CREATE TABLE IF NOT EXISTS schema_history (
      path text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`
    const history = new Map(
      (yield* sql<{ readonly path: string; readonly checksum: string }>`SELECT path, checksum FROM schema_history`)
        .map((row) => [row.path, row.checksum])
    )
    // bodies are checked when called: a file defines its functions by concern, not in call order
    yield* sql`SET LOCAL check_function_bodies = off`
    const applied: Array<string> = []
    const apply = (file: SchemaFile) =>
      Effect.gen(function*() {
        yield* sql.unsafe(file.text).raw
        yield* sql`INSERT INTO schema_history (path, checksum) VALUES (${file.path}, ${file.checksum})
                   ON CONFLICT (path) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`
        applied.push(file.path)
      })
    for (const file of [...files.tables, ...files.migrations]) {
      const recorded = history.get(file.path)
      if (recorded === undefined) {
        if (file.path.startsWith("schema/") && history.size > 0) {
          return yield* refuse(
            `sql/${file.path} is new since this database was made: a table change is a numbered migration ` +
              "in sql/migrations/ (before the first release: recreate the database)"
          )
        }
        yield* apply(file)
      } else if (recorded !== file.checksum) {
        return yield* refuse(
          `sql/${file.path} changed after it was applied to this database: a table change is a numbered migration ` +
            "in sql/migrations/ (before the first release: recreate the database)"
        )
      }
    }
    for (const file of files.definitions) {
      if (history.get(file.path) !== file.checksum) yield* apply(file)
    }
    return applied as ReadonlyArray<string>
  }))
})

/**
 * What a read replica (hot standby, which takes no DDL) lacks of the schema this code expects: the
 * files the primary's `bun run migrate` would still apply (new, or changed since), none when current.
 */
export const pendingSchemaFiles = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const files = schemaFiles()
  const [table] = yield* sql<{ readonly present: boolean }>`SELECT to_regclass('public.schema_history') IS NOT NULL AS present`
  const history = new Map(
    table?.present === true
      ? (yield* sql<{ readonly path: string; readonly checksum: string }>`SELECT path, checksum FROM schema_history`)
        .map((row) => [row.path, row.checksum] as const)
      : []
  )
  return [...files.tables, ...files.migrations, ...files.definitions]
    .filter((file) => history.get(file.path) !== file.checksum)
    .map((file) => `sql/${file.path}`)
})
