/**
 * The loader owns what sql/definitions makes (docs/data-model.md, "How the schema is applied"): an
 * object no longer in a file is dropped at the next migrate, and a changed definition of kept
 * data rebuilds that data in the same migrate, by the refills the files declare.
 *
 * A copy of sql/ in a temporary directory is migrated (applySchemaFrom) over a seeded catalogue,
 * edited, and migrated again: on a fresh database of TEST_DATABASE_URL's server, else on an
 * in-memory embedded database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { queryPathLayer } from "../src/Database.js"
import { applySchemaFrom, emptiedFirstOf, pendingSchemaFilesFrom, refillsOf, schemaFiles, SQL_DIR } from "../src/Database/Schema.js"
import { seedCatalogue } from "../src/Seed/generate.js"
import { RECOUNTS } from "../src/Seed/keptCounts.js"
import { memoryDatabase } from "./support/memoryDatabase.js"

let runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
let close: () => Promise<void>
const copy = mkdtempSync(join(tmpdir(), "catalogue-sql-"))

const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => runtime.runPromise(effect)
const query = <A extends object>(text: string) => run(SqlClient.SqlClient.use((sql) => sql.unsafe<A>(text)))
const migrate = () => run(applySchemaFrom(copy))

/** Rewrites one file of the copy. */
const edit = (path: string, change: (text: string) => string) => {
  const file = join(copy, path)
  const text = readFileSync(file, "utf8")
  const changed = change(text)
  expect(changed).not.toBe(text)
  writeFileSync(file, changed)
}

const onPostgres = async (serverUrl: string) => {
  const name = `lifecycle_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    await client.query(text).finally(() => client.end())
  }
  await admin(`CREATE DATABASE "${name}"`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  runtime = ManagedRuntime.make(queryPathLayer({ connectionString: url.toString(), max: 1 }) as Layer.Layer<SqlClient.SqlClient, unknown>)
  close = async () => {
    await runtime.dispose()
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  }
}

const embedded = async () => {
  ;({ runtime, close } = await memoryDatabase())
}

beforeAll(async () => {
  cpSync(SQL_DIR, copy, { recursive: true })
  const serverUrl = process.env["TEST_DATABASE_URL"]
  await (serverUrl ? onPostgres(serverUrl) : embedded())
  await migrate()
  await run(SqlClient.SqlClient.use((sql) => seedCatalogue(sql, { songs: 300, today: "2024-05-01", seed: 5 })))
}, 180_000)

afterAll(async () => {
  await close?.()
  rmSync(copy, { recursive: true, force: true })
}, 60_000)

/** An md5 of every kept count table, each in row order: what the triggers kept, or a recount wrote. */
const keptCounts = async () => {
  const tables = [...readFileSync(join(SQL_DIR, "schema/3_kept_counts.sql"), "utf8").matchAll(/^CREATE TABLE (\w+_counts) /gm)]
    .map((m) => m[1]!)
  expect(tables.length).toBeGreaterThan(5)
  const sums: Record<string, string | null> = {}
  for (const table of tables) {
    const [row] = await query<{ sum: string | null }>(`SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS sum FROM ${table} t`)
    sums[table] = row!.sum
  }
  return sums
}

const triggerNames = async () =>
  new Set((await query<{ tgname: string }>("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")).map((row) => row.tgname))

describe("the loader owns the definitions", () => {
  test("every refill a file declares is a function of the migrated database; every recount of a bulk load is declared", async () => {
    const declared = schemaFiles(copy).definitions.flatMap(refillsOf)
    expect(declared.length).toBeGreaterThan(0)
    const [{ missing }] = await query<{ missing: Array<string> }>(
      `SELECT coalesce(array_agg(r), '{}') AS missing FROM unnest(ARRAY[${declared.map((r) => `'${r}'`).join(",")}]) r
       WHERE to_regproc(r) IS NULL`
    ) as [{ missing: Array<string> }]
    expect(missing).toEqual([])
    expect(RECOUNTS.filter((recount) => recount !== "feed_backfill" && !declared.includes(recount))).toEqual([])
    // the tables emptied before the refills are tables, each in a file that refills
    const emptied = schemaFiles(copy).definitions.flatMap((file) => emptiedFirstOf(file).map((table) => ({ table, refills: refillsOf(file).length > 0 })))
    expect(emptied.length).toBeGreaterThan(0)
    for (const { table, refills } of emptied) {
      expect({ table, refills, present: (await query<{ present: boolean }>(`SELECT to_regclass('${table}') IS NOT NULL AS present`))[0]!.present })
        .toEqual({ table, refills: true, present: true })
    }
  })

  test("a renamed count trigger: the old one is dropped at the next migrate, and a write counts once", async () => {
    const counts = "definitions/3_counts.sql"
    // song_labels' lines of the attachment list (attach_count_triggers): (table, name, operations, function)
    const line = /\('song_labels',(\s*)'(\w+)',(\s*)'\{delete,insert,update\}'/g
    const attached = [...readFileSync(join(copy, counts), "utf8").matchAll(line)].map((m) => m[2]!)
    expect(attached.length).toBeGreaterThan(0)
    const triggersOf = (name: string) => ["delete", "insert", "update"].map((op) => `song_labels_${name}_${op}`)
    // "0" sorts below every other character of a name: the triggers keep their firing order
    edit(counts, (text) => text.replace(line, "('song_labels',$1'$20',$3'{delete,insert,update}'"))
    await migrate()
    const names = await triggerNames()
    expect(attached.flatMap(triggersOf).filter((name) => names.has(name))).toEqual([])
    expect(attached.flatMap((name) => triggersOf(`${name}0`)).filter((name) => !names.has(name))).toEqual([])

    // a label gains a song it did not have: every kept count as a recount from scratch gives it
    await query(`INSERT INTO song_labels (song_id, label_id, released_at)
                 SELECT s.id, l.id, s.released_at FROM songs s CROSS JOIN labels l
                 WHERE song_is_public(s.published_at, s.deleted_at)
                   AND NOT EXISTS (SELECT 1 FROM song_labels x WHERE x.song_id = s.id AND x.label_id = l.id)
                 ORDER BY s.id, l.id LIMIT 3`)
    // emptied before the refills and written whole again by them
    expect(await query<{ same: boolean }>(
      `SELECT (SELECT count(*) FROM search_docs) = (SELECT count(*) FROM search_sources) AND (SELECT count(*) FROM search_docs) > 0 AS same`
    )).toEqual([{ same: true }])
    const kept = await keptCounts()
    for (const refill of schemaFiles(copy).definitions.flatMap(refillsOf)) await query(`SELECT ${refill}()`)
    expect(kept).toEqual(await keptCounts())
  }, 120_000)

  test("a changed popularity: the search rows hold the new one after the same migrate", async () => {
    const stale = `SELECT count(*)::int AS n FROM search_docs d JOIN search_sources s ON s.kind = d.kind AND s.id = d.id
                   WHERE s.popularity IS DISTINCT FROM d.popularity`
    const unlikePostings = `SELECT count(*)::int AS n FROM search_postings p JOIN search_docs d ON d.kind = p.kind AND d.id = p.id
                            WHERE p.popularity IS DISTINCT FROM d.popularity`
    const [{ n: before }] = await query<{ n: number }>(stale) as [{ n: number }]
    expect(before).toBe(0)
    const songs = `SELECT sum(popularity)::bigint AS total, count(*)::int AS n FROM search_docs WHERE kind = search_kind('songs')`
    const [was] = await query<{ total: string; n: number }>(songs)
    // the first popularity of search_sources (the songs') raised by 7
    edit("definitions/5_search.sql", (text) => text.replace(" AS popularity", " + 7 AS popularity"))
    await migrate()
    const [now] = await query<{ total: string; n: number }>(songs)
    expect(was!.n).toBeGreaterThan(0)
    expect(BigInt(now!.total)).toBe(BigInt(was!.total) + 7n * BigInt(was!.n))
    expect(await query<{ n: number }>(stale)).toEqual([{ n: 0 }])
    expect(await query<{ n: number }>(unlikePostings)).toEqual([{ n: 0 }])
  }, 120_000)

  test("a database whose definitions no loader noted: the first migrate drops what no file makes, and keeps the table files'", async () => {
    await query("DROP TABLE schema_objects")
    await query("CREATE FUNCTION stray_definition() RETURNS integer LANGUAGE sql RETURN 1")
    expect(await migrate()).toEqual([])
    const [row] = await query<{ stray: string | null; computed: string | null }>(
      "SELECT to_regproc('stray_definition')::text AS stray, to_regproc('fold_name')::text AS computed"
    )
    expect(row).toEqual({ stray: null, computed: "fold_name" })
    const paths = await query<{ path: string }>("SELECT DISTINCT path FROM schema_objects ORDER BY 1")
    expect(paths.map((p) => p.path).sort()).toEqual([...schemaFiles(copy).definitions.map((file) => file.path), "schema/"].sort())
  }, 120_000)

  test("a read replica's check names a definitions file changed or removed since the primary migrated", async () => {
    expect(await run(pendingSchemaFilesFrom(copy))).toEqual([])
    const formats = join(copy, "definitions/2_formats.sql")
    writeFileSync(formats, `${readFileSync(formats, "utf8")}\n-- edited\n`)
    expect(await run(pendingSchemaFilesFrom(copy))).toEqual(["sql/definitions/2_formats.sql"])
    renameSync(formats, `${formats}.away`)
    expect(await run(pendingSchemaFilesFrom(copy))).toEqual(["sql/definitions/2_formats.sql"])
    renameSync(`${formats}.away`, formats)
    await migrate()
    expect(await run(pendingSchemaFilesFrom(copy))).toEqual([])
  }, 120_000)

  test("nothing changed: nothing applied, nothing refilled", async () => {
    await query("UPDATE search_docs SET popularity = popularity + 1 WHERE kind = search_kind('songs')")
    expect(await migrate()).toEqual([])
    const [{ n }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM search_docs d JOIN search_sources s ON s.kind = d.kind AND s.id = d.id
                                               WHERE s.popularity IS DISTINCT FROM d.popularity`) as [{ n: number }]
    expect(n).toBeGreaterThan(0)
  }, 120_000)
})
