import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { sqlError } from "./Faults.js"

/**
 * The schema in sql/ (docs/data-model.md, "How the schema is applied"):
 * - schema/: the tables and indexes, by concern, applied once to an empty database in name order;
 * - migrations/NNNN_name.sql: table changes after the first release, each applied once, in order;
 * - definitions/: every view, function and trigger, by concern. The loader owns them: when any
 *   file changed, it drops every object the definitions made and applies them all again, noting
 *   which file made which object (schema_objects); then it runs the refills the changed files
 *   declare, so that the data they keep follows their new text.
 * schema_history keeps each file's checksum. All of it runs in one transaction.
 */
export const SQL_DIR = resolve(import.meta.dir, "../../sql")

export type SchemaFile = {
  readonly path: string
  readonly text: string
  readonly checksum: string
  /** The checksum of its statements alone, comments and layout aside. */
  readonly statements: string
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
const withoutComments = (text: string) => text.replace(/--[^\n]*/g, "").replace(/\s+/g, " ").trim()
const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true })

/**
 * What a file's checksum is taken over. A table file's comments and layout may be edited without
 * touching an applied database (its checksum ignores them); a definitions file is applied again
 * on any edit, so that the bodies' own comments stay as written.
 */
const filesIn = (sqlDir: string, folder: string, pattern: RegExp): ReadonlyArray<SchemaFile> => {
  const dir = join(sqlDir, folder)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => pattern.test(name))
    .sort(byName)
    .map((name) => {
      const text = readFileSync(join(dir, name), "utf8")
      const statements = sha256(withoutComments(text))
      return { path: `${folder}/${name}`, text, checksum: folder === "definitions" ? sha256(text) : statements, statements }
    })
}

export const schemaFiles = (sqlDir: string = SQL_DIR) => ({
  tables: filesIn(sqlDir, "schema", /^\d+_[\w-]+\.sql$/),
  migrations: filesIn(sqlDir, "migrations", /^\d{4}_[\w-]+\.sql$/),
  definitions: filesIn(sqlDir, "definitions", /^\d+_[\w-]+\.sql$/)
})

/**
 * The refills a file declares, in order: `-- refill: name, name` lines, each a function called
 * with no arguments that rebuilds the data the file keeps from the tables it is kept from.
 */
export const refillsOf = (file: SchemaFile): ReadonlyArray<string> =>
  [...file.text.matchAll(/^-- refill: (.+)$/gm)].flatMap((line) =>
    line[1]!.split(",").map((name) => {
      const trimmed = name.trim()
      if (!/^\w+$/.test(trimmed)) throw new Error(`sql/${file.path}: a refill is a function name, not ${JSON.stringify(trimmed)}`)
      return trimmed
    })
  )

/**
 * The tables a file's refills rebuild whole, emptied before the first refill due runs: `-- refill
 * empties first: table, table` lines. The refills before them write the tables their triggers read
 * (search's popularity follows the kept counts); emptied, those triggers have no rows to move, and
 * the file's own refill writes every row once. The seed empties the same tables before its load.
 */
export const emptiedFirstOf = (file: SchemaFile): ReadonlyArray<string> =>
  [...file.text.matchAll(/^-- refill empties first: (.+)$/gm)].flatMap((line) =>
    line[1]!.split(",").map((name) => {
      const trimmed = name.trim()
      if (!/^\w+$/.test(trimmed)) throw new Error(`sql/${file.path}: a table to empty is a table name, not ${JSON.stringify(trimmed)}`)
      return trimmed
    })
  )

const refuse = (message: string) => sqlError(new Error(message), message)

type SchemaObject = { readonly kind: "trigger" | "view" | "routine"; readonly identity: string }

/**
 * Every view, function and trigger of the current schema that no extension brought, each by the
 * identity its DROP statement takes (quoted by the catalog).
 */
const CATALOG_OBJECTS = `
  SELECT 'routine' AS kind, p.oid::regprocedure::text AS identity FROM pg_proc p
  WHERE p.pronamespace = current_schema()::regnamespace
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  UNION ALL
  SELECT 'view', c.oid::regclass::text FROM pg_class c
  WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'v'
  UNION ALL
  SELECT 'trigger', format('%I ON %s', t.tgname, t.tgrelid::regclass) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal`

/** Notes every object of the catalog not noted yet as made by `path`. */
const noteNewObjects = (sql: SqlClient.SqlClient, path: string) =>
  sql`INSERT INTO schema_objects (kind, identity, path)
      SELECT o.kind, o.identity, ${path} FROM (${sql.literal(CATALOG_OBJECTS)}) o ON CONFLICT DO NOTHING`

/**
 * Drops the objects: triggers first, one a statement, then the views and then the functions, each
 * kind in one statement; without CASCADE, so that a table or an index computed with one stops
 * the migration.
 */
const dropAll = (sql: SqlClient.SqlClient, objects: ReadonlyArray<SchemaObject>) => {
  const of = (kind: SchemaObject["kind"]) => objects.filter((o) => o.kind === kind).map((o) => o.identity)
  const statements = [
    ...of("trigger").map((identity) => `DROP TRIGGER IF EXISTS ${identity};`),
    ...(of("view").length > 0 ? [`DROP VIEW IF EXISTS ${of("view").join(", ")};`] : []),
    ...(of("routine").length > 0 ? [`DROP ROUTINE IF EXISTS ${of("routine").join(", ")};`] : [])
  ]
  return statements.length === 0 ? Effect.void : sql.unsafe(statements.join("\n")).raw
}

/**
 * The names of the functions, views and triggers that a CREATE statement of the table files
 * makes: on a database whose definitions were applied before the loader noted what they made,
 * the other objects of the schema are taken for the definitions'.
 */
const namedByTableFiles = (files: ReadonlyArray<SchemaFile>) =>
  new Set(
    files.flatMap((file) =>
      [...withoutComments(file.text).matchAll(
        /CREATE (?:OR REPLACE )?(?:CONSTRAINT )?(?:FUNCTION|PROCEDURE|VIEW|TRIGGER) (?:IF NOT EXISTS )?"?(\w+)/gi
      )].map((m) => m[1]!.toLowerCase())
    )
  )

const nameOf = (object: SchemaObject) => /^"?([^"(\s]+)/.exec(object.identity)![1]!.toLowerCase()

const isDefinitions = (path: string) => path.startsWith("definitions/")

type Recorded = { readonly path: string; readonly checksum: string; readonly statements: string | null }
type SchemaFiles = ReturnType<typeof schemaFiles>

/** Notes a file applied, with its checksums (applied_at: when its text last changed). */
const record = (sql: SqlClient.SqlClient, file: SchemaFile) =>
  sql`INSERT INTO schema_history (path, checksum, statements) VALUES (${file.path}, ${file.checksum}, ${file.statements})
      ON CONFLICT (path) DO UPDATE SET checksum = EXCLUDED.checksum, statements = EXCLUDED.statements,
        applied_at = CASE WHEN schema_history.checksum = EXCLUDED.checksum THEN schema_history.applied_at ELSE now() END`

/** The table files and migrations not applied yet, applied; refused when an applied one changed since. */
const applyTables = (sql: SqlClient.SqlClient, files: SchemaFiles, history: ReadonlyMap<string, Recorded>) =>
  Effect.gen(function*() {
    const applied: Array<SchemaFile> = []
    for (const file of [...files.tables, ...files.migrations]) {
      const recorded = history.get(file.path)
      if (recorded === undefined) {
        if (file.path.startsWith("schema/") && history.size > 0) {
          return yield* refuse(
            `sql/${file.path} is new since this database was made: a table change is a numbered migration ` +
              "in sql/migrations/ (before the first release: recreate the database)"
          )
        }
        yield* sql.unsafe(file.text).raw
        yield* record(sql, file)
        applied.push(file)
      } else if (recorded.checksum !== file.checksum) {
        return yield* refuse(
          `sql/${file.path} changed after it was applied to this database: a table change is a numbered migration ` +
            "in sql/migrations/ (before the first release: recreate the database)"
        )
      }
    }
    return applied
  })

/**
 * Drops what the definitions made (`made`), applies every definitions file in order and notes
 * what each made; what is left after the drops is not theirs (the table files', anything made by
 * hand) and is noted apart, never dropped.
 */
const applyDefinitions = (sql: SqlClient.SqlClient, files: SchemaFiles, made: ReadonlyArray<SchemaObject>, gone: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* dropAll(sql, made)
    yield* sql`DELETE FROM schema_objects`
    yield* noteNewObjects(sql, "schema/")
    if (gone.length > 0) yield* sql`DELETE FROM schema_history WHERE path IN ${sql.in(gone)}`
    for (const file of files.definitions) {
      yield* sql.unsafe(file.text).raw
      yield* noteNewObjects(sql, file.path)
      yield* record(sql, file)
    }
  })

/**
 * The refills to run: those of the first definitions file whose statements changed (or that is
 * gone) and of every file after it (later files build on earlier ones), then those the applied
 * migrations name.
 */
const refillsDue = (files: SchemaFiles, history: ReadonlyMap<string, Recorded>, gone: ReadonlyArray<string>, migrated: ReadonlyArray<SchemaFile>) => {
  const first = [
    ...files.definitions.filter((file) => history.get(file.path)?.statements !== file.statements).map((file) => file.path),
    ...gone
  ].sort(byName)[0]
  const refilled = [
    ...files.definitions.filter((file) => first !== undefined && byName(file.path, first) >= 0),
    ...migrated
  ]
  return { refills: [...new Set(refilled.flatMap(refillsOf))], emptied: [...new Set(refilled.flatMap(emptiedFirstOf))] }
}

/**
 * Brings the schema of `sqlDir` up to date; the files applied, in order (none when it was).
 * Refuses a database made by the numbered migration chain this layout replaced (its table
 * schema_migrations), and one whose applied table files have since changed.
 */
export const applySchemaFrom = (sqlDir: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const files = schemaFiles(sqlDir)
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
      yield* sql`ALTER TABLE schema_history ADD COLUMN IF NOT EXISTS statements text`
      const [noted] = yield* sql<{ readonly present: boolean }>`SELECT to_regclass('schema_objects') IS NOT NULL AS present`
      yield* sql`CREATE TABLE IF NOT EXISTS schema_objects (
        kind text NOT NULL,
        identity text NOT NULL,
        path text NOT NULL,
        PRIMARY KEY (kind, identity)
      )`
      const history: ReadonlyMap<string, Recorded> = new Map(
        (yield* sql<Recorded>`SELECT path, checksum, statements FROM schema_history`).map((row) => [row.path, row])
      )
      // bodies are checked when called: a file defines its functions by concern, not in call order
      yield* sql`SET LOCAL check_function_bodies = off`
      const migrated = yield* applyTables(sql, files, history)

      const appliedBefore = [...history.keys()].filter(isDefinitions)
      const gone = appliedBefore.filter((path) => !files.definitions.some((file) => file.path === path))
      const changed = files.definitions.filter((file) => history.get(file.path)?.checksum !== file.checksum)
      // a database whose definitions were applied before the loader noted what they made
      const unnoted = noted?.present !== true && appliedBefore.length > 0
      if (migrated.length === 0 && changed.length === 0 && gone.length === 0 && !unnoted) return []

      const tables = namedByTableFiles([...files.tables, ...files.migrations])
      const made = unnoted
        ? (yield* sql.unsafe<SchemaObject>(CATALOG_OBJECTS)).filter((object) => !tables.has(nameOf(object)))
        : yield* sql<SchemaObject>`SELECT kind, identity FROM schema_objects WHERE path LIKE 'definitions/%'`
      yield* applyDefinitions(sql, files, made, gone)
      // a new database has no data to refill
      if (appliedBefore.length > 0) {
        const { emptied, refills } = refillsDue(files, history, gone, migrated)
        if (emptied.length > 0) yield* sql.unsafe(`TRUNCATE ${emptied.join(", ")}`).raw
        for (const refill of refills) yield* sql.unsafe(`SELECT ${refill}()`).raw
      }
      return [...migrated, ...changed].map((file) => file.path) as ReadonlyArray<string>
    }))
  })

/** The schema of sql/ brought up to date (applySchemaFrom). */
export const applySchema = applySchemaFrom(SQL_DIR)

/**
 * What a read replica (hot standby, which takes no DDL) lacks of the schema this code expects: the
 * files the primary's `bun run migrate` would still apply (new, or changed since) or drop the
 * objects of (removed), none when current.
 */
export const pendingSchemaFilesFrom = (sqlDir: string) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const files = schemaFiles(sqlDir)
  const [table] = yield* sql<{ readonly present: boolean }>`SELECT to_regclass('public.schema_history') IS NOT NULL AS present`
  const history = new Map(
    table?.present === true
      ? (yield* sql<{ readonly path: string; readonly checksum: string }>`SELECT path, checksum FROM schema_history`)
        .map((row) => [row.path, row.checksum] as const)
      : []
  )
  const current = [...files.tables, ...files.migrations, ...files.definitions]
  return [
    ...current.filter((file) => history.get(file.path) !== file.checksum).map((file) => file.path),
    ...[...history.keys()].filter((path) => isDefinitions(path) && !current.some((file) => file.path === path))
  ].map((path) => `sql/${path}`)
})

/** The same for sql/. */
export const pendingSchemaFiles = pendingSchemaFilesFrom(SQL_DIR)
