/**
 * The deterministic demo-catalogue seed.
 *
 * `seedCatalogue(sql, { songs })` fills an empty, migrated database with a Malaysian music
 * catalogue of the requested size: artists and bands (namesakes included), labels, members of
 * every kind, songs with credits, genres, labels and versions, albums, curated lists, loves and
 * contribution histories, plus unpublished and deleted rows so visibility rules are exercised.
 * Each kind of row is made by its own module (reference.ts, members.ts, artists.ts, songs.ts
 * with albums.ts, credits.ts and contributions.ts, lists.ts, loves.ts); this one drives them
 * and writes their rows.
 *
 * Determinism: every value is a function of (seed, songs, today). Nothing reads `Math.random`;
 * the only clock read is "today" (the UTC calendar date, overridable by `options.today`), and
 * every timestamp is derived from midnight UTC of that day, so two runs on the same day give
 * byte-identical tables.
 *
 * Scale: rows are generated in chunks and written with one `INSERT ... SELECT FROM
 * json_populate_recordset(...)` statement per table and batch (one JSON parameter per statement,
 * so there is no bind-parameter limit), all in one transaction; see `seedCatalogue` for how
 * foreign keys and secondary indexes are deferred to the end. Memory stays bounded:
 * besides the current chunk, only a few typed arrays indexed by song id (4 bytes per song) and
 * the set of member usernames are kept.
 */
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { emptiedFirstOf, schemaFiles } from "../Database/Schema.js"
import { artistRows, membershipRows } from "./artists.js"
import { deferrableDdl, recountKeptCounts, switchKeptCounts, yieldToEventLoop } from "./bulkLoad.js"
import { Catalogue } from "./catalogue.js"
import { parseToday } from "./dates.js"
import { curatedListBatch } from "./lists.js"
import { loveRows } from "./loves.js"
import { memberRows } from "./members.js"
import { type SeedOptions, SeedOptionsError, type SeedSummary } from "./plan.js"
import { genreRows, labelRows, roleRows } from "./reference.js"
import { SongWalk } from "./songs.js"
import { type Batch, IDENTITY_TABLES, insertStatement, type Row, SEED_TABLES, type SeedTable } from "./tables.js"

/** Ids `1..total` in consecutive ranges `[from, to]` of `size` ids (members, artists). */
function* idRanges(total: number, size = 5000): Generator<readonly [number, number]> {
  for (let from = 1; from <= total; from += size) yield [from, Math.min(total, from + size - 1)]
}

/**
 * Fills an empty, migrated database with the demo catalogue.
 *
 * Everything runs in one transaction: a failure leaves the database as it was. With `bulk`
 * (the default) the foreign keys and non-unique secondary indexes of the catalogue tables are
 * dropped at the start of that transaction and recreated, with their exact definitions, at the
 * end; Postgres then checks each foreign key with one query and builds each index in one sort,
 * instead of doing both row by row. Generation of the next chunk overlaps the writing of the
 * previous one.
 */
export const seedCatalogue = (
  sql: SqlClient,
  options: SeedOptions
): Effect.Effect<SeedSummary, SqlError | SeedOptionsError> =>
  Effect.gen(function* () {
    const songs = options.songs
    if (!Number.isSafeInteger(songs) || songs < 1 || songs > 50_000_000) {
      return yield* Effect.fail(new SeedOptionsError({ message: `songs must be a whole number from 1 to 50,000,000, got ${songs}` }))
    }
    const seed = options.seed ?? 1
    if (!Number.isSafeInteger(seed)) {
      return yield* Effect.fail(new SeedOptionsError({ message: `seed must be a whole number, got ${seed}` }))
    }
    const todayDay = yield* Effect.try({
      try: () => parseToday(options.today),
      catch: (error) => new SeedOptionsError({ message: error instanceof Error ? error.message : String(error) })
    })
    const batchSize = Math.max(1, options.batchSize ?? 5000)
    const chunkSongs = Math.max(1, options.chunkSongs ?? 2000)
    const bulk = options.bulk ?? true
    const cat = new Catalogue({ songs, seed: seed >>> 0, todayDay })
    const walk = new SongWalk(cat)
    const plan = cat.plan

    const rows = Object.fromEntries(SEED_TABLES.map((table) => [table, 0])) as Record<SeedTable, number>
    let totalRows = 0
    let done = 0
    const total = cat.totalUnits
    const statements = Object.fromEntries(SEED_TABLES.map((table) => [table, insertStatement(table)])) as Record<SeedTable, string>

    const report = (phase: string, units: number) =>
      Effect.sync(() => {
        done += units
        options.onProgress?.(Math.min(done, total), total, { phase, rows: totalRows })
      })

    const insert = (table: SeedTable, tableRows: ReadonlyArray<Row>) =>
      Effect.gen(function* () {
        for (let start = 0; start < tableRows.length; start += batchSize) {
          const slice = tableRows.slice(start, start + batchSize)
          yield* sql.unsafe(statements[table], [JSON.stringify(slice)])
          rows[table] += slice.length
          totalRows += slice.length
        }
      })

    const writeBatch = (batch: Batch) =>
      Effect.gen(function* () {
        for (const table of SEED_TABLES) {
          const tableRows = batch[table]
          if (tableRows !== undefined && tableRows.length > 0) yield* insert(table, tableRows)
        }
      })

    // One batch is written (in a forked fiber, on the transaction's connection) while the next
    // is generated; batches are written strictly in order, so parents precede children.
    let inflight: Fiber.Fiber<void, SqlError> | undefined
    const submit = (batch: Batch) =>
      Effect.gen(function* () {
        if (inflight !== undefined) yield* Fiber.join(inflight)
        inflight = yield* Effect.forkChild(writeBatch(batch))
        yield* yieldToEventLoop
      })
    const drain = Effect.suspend(() => (inflight === undefined ? Effect.void : Fiber.join(inflight)))

    const load = Effect.gen(function* () {
      yield* sql.unsafe("SET LOCAL statement_timeout = 0")
      yield* sql.unsafe("SET LOCAL synchronous_commit = off")
      yield* sql.unsafe("SET LOCAL maintenance_work_mem = '128MB'")
      const ddl = bulk ? yield* deferrableDdl(sql) : { drop: [], create: [] }
      for (const statement of ddl.drop) yield* sql.unsafe(statement)
      // The kept counts are recounted once at the end instead of per batch.
      if (bulk) yield* switchKeptCounts(sql, "DISABLE")
      // rebuilt whole by their refills at the end; empty meanwhile, so that the recounts' triggers
      // (search's popularity follows the kept counts) have no rows to move
      if (bulk) yield* sql.unsafe(`TRUNCATE ${schemaFiles().definitions.flatMap(emptiedFirstOf).join(", ")}`)

      yield* report("reference", 0)
      yield* submit({ roles: roleRows(), genres: genreRows(), labels: labelRows(cat) })

      const usernames = new Set<string>()
      const joined = new Float64Array(plan.members + 1)
      for (const [from, to] of idRanges(plan.members)) {
        const members = memberRows(cat, from, to, usernames)
        members.forEach((row, index) => {
          const at = row["joined_at"]
          joined[from + index] = typeof at === "string" ? Date.parse(at) : 0
        })
        yield* submit({ members })
        yield* report("members", to - from + 1)
      }
      usernames.clear()

      for (const [from, to] of idRanges(plan.artists)) {
        yield* submit({ artists: artistRows(cat, from, to) })
        yield* report("artists", (to - from + 1) / 2)
      }
      for (const [from, to] of idRanges(plan.artists)) {
        yield* submit({ artist_memberships: membershipRows(cat, from, to) })
        yield* report("artists", (to - from + 1) / 2)
      }

      const slice = Math.min(250, chunkSongs)
      while (walk.songsDone < plan.songs) {
        const before = walk.songsDone
        const batch: Batch = {}
        while (walk.songsDone < plan.songs && walk.songsDone - before < chunkSongs) {
          walk.songs(Math.min(slice, chunkSongs - (walk.songsDone - before)), batch)
          yield* yieldToEventLoop
        }
        yield* submit(batch)
        yield* report("songs", walk.songsDone - before)
      }

      yield* submit(curatedListBatch(cat, walk.albumCount))
      yield* report("lists", plan.curatedLists)

      for (const [from, to] of idRanges(plan.members)) {
        yield* submit({ loves: loveRows(cat, from, to, (member) => joined[member] ?? 0) })
        yield* report("loves", to - from + 1)
      }
      yield* drain

      yield* report("finish", 0)
      for (const statement of ddl.create) yield* sql.unsafe(statement)
      for (const table of IDENTITY_TABLES) {
        yield* sql.unsafe(
          `SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce(max(id), 0) + 1, false) FROM ${table}`
        )
      }
      yield* sql.unsafe(`ANALYZE ${SEED_TABLES.join(", ")}`)
      if (bulk) {
        yield* recountKeptCounts(sql)
        yield* switchKeptCounts(sql, "ENABLE")
      }
    })

    yield* sql.withTransaction(load)

    return {
      seed,
      today: cat.todayText,
      plan: { ...plan, albums: walk.albumCount },
      rows,
      totalRows
    } satisfies SeedSummary
  })
