/**
 * The demo-catalogue generator (src/Seed): determinism, ratios and the cases the
 * API depends on (namesakes, every date precision, hidden rows, on-this-day songs).
 *
 * Runs against a fresh `seed_test_<random>` database on the server of TEST_DATABASE_URL, with
 * the schema of sql/ applied (src/Database/Schema.ts), dropped afterwards; without TEST_DATABASE_URL it uses an
 * in-memory embedded database (PGlite), which also checks the generator works there.
 */
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import pg from "pg"
import { queryPathLayer } from "../src/Database.js"
import { applySchema } from "../src/Database/Schema.js"
import { seedCatalogue } from "../src/Seed/generate.js"
import { planCatalogue, type SeedOptions } from "../src/Seed/plan.js"
import { SEED_TABLES } from "../src/Seed/tables.js"
import { slugify } from "../src/Seed/text.js"
import { artistNameGramsUnlike } from "./support/keptRows.js"
import { memoryDatabase } from "./support/memoryDatabase.js"

const SONGS = 500
/** A leap day: "on this day" songs must come from leap years. */
const TODAY = "2024-02-29"

interface Harness {
  readonly runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
  readonly close: () => Promise<void>
}

const postgresHarness = async (serverUrl: string): Promise<Harness> => {
  const name = `seed_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}"`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  // the service's own query path (a text of several statements goes as one simple query)
  const layer: Layer.Layer<SqlClient.SqlClient, unknown> = queryPathLayer({ connectionString: url.toString(), max: 2 })
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(applySchema)
  return {
    runtime,
    close: async () => {
      await runtime.dispose()
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await client.end()
    }
  }
}

const embeddedHarness = async (): Promise<Harness> => {
  const harness = await memoryDatabase()
  await harness.runtime.runPromise(applySchema)
  return harness
}

let harness: Harness | undefined
const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>): Promise<A> => {
  if (harness === undefined) throw new Error("no database")
  return harness.runtime.runPromise(effect)
}

/** One number from a query returning a single `n` column. */
const count = (text: string) =>
  run(
    SqlClient.SqlClient.use((sql) => sql.unsafe<{ readonly n: number }>(text)).pipe(
      Effect.map((rows) => Number(rows[0]?.n ?? Number.NaN))
    )
  )

/** An md5 over every row of every seeded table, in key order. */
const checksums = () =>
  run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const sums: Record<string, string> = {}
      for (const table of SEED_TABLES) {
        const [row] = yield* sql.unsafe<{ readonly sum: string | null }>(
          `SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS sum FROM ${table} t`
        )
        sums[table] = row?.sum ?? ""
      }
      return sums
    })
  )

const reseed = (options: Omit<SeedOptions, "songs" | "today"> = {}) =>
  run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`TRUNCATE ${SEED_TABLES.join(", ")} RESTART IDENTITY CASCADE`)
      return yield* seedCatalogue(sql, { songs: SONGS, today: TODAY, seed: 7, ...options })
    })
  )

let firstSums: Record<string, string> = {}

beforeAll(async () => {
  const serverUrl = process.env["TEST_DATABASE_URL"]
  harness = serverUrl === undefined || serverUrl === "" ? await embeddedHarness() : await postgresHarness(serverUrl)
  await reseed()
  firstSums = await checksums()
}, 120_000)

afterAll(async () => {
  await harness?.close()
}, 60_000)

describe("seed generator", () => {
  test("derives the sizes from the number of songs", async () => {
    const plan = planCatalogue(SONGS)
    expect(await count("SELECT count(*)::int AS n FROM songs")).toBe(SONGS)
    expect(await count("SELECT count(*)::int AS n FROM artists")).toBe(plan.artists)
    expect(await count("SELECT count(*)::int AS n FROM members")).toBe(plan.members)
    expect(await count("SELECT count(*)::int AS n FROM labels")).toBe(plan.labels)
    expect(await count("SELECT count(*)::int AS n FROM curated_lists")).toBe(plan.curatedLists)
    const albums = await count("SELECT count(*)::int AS n FROM albums")
    expect(albums).toBeGreaterThan(SONGS / 8 / 1.6)
    expect(albums).toBeLessThan((SONGS / 8) * 1.6)
    const creditsPerSong = (await count("SELECT count(*)::int AS n FROM credits")) / SONGS
    expect(creditsPerSong).toBeGreaterThan(2.5)
    expect(creditsPerSong).toBeLessThan(4)
    expect(await count("SELECT count(*)::int AS n FROM contributions WHERE action = 'add'")).toBe(SONGS)
    const editsPerSong = (await count("SELECT count(*)::int AS n FROM contributions WHERE action = 'edit'")) / SONGS
    expect(editsPerSong).toBeGreaterThan(0.6)
    expect(editsPerSong).toBeLessThan(1.5)
    const lovesPerMember = (await count("SELECT count(*)::int AS n FROM loves")) / plan.members
    expect(lovesPerMember).toBeGreaterThan(1)
    expect(lovesPerMember).toBeLessThan(3.5)
    // every song has 1-3 genres and a first credit by a performer
    expect(await count("SELECT count(*)::int AS n FROM songs s WHERE NOT EXISTS (SELECT 1 FROM song_genres g WHERE g.song_id = s.id)")).toBe(0)
    expect(await count("SELECT count(*)::int AS n FROM (SELECT song_id FROM song_genres GROUP BY 1 HAVING count(*) > 3) x")).toBe(0)
    expect(
      await count(
        "SELECT count(*)::int AS n FROM credits c JOIN roles r ON r.id = c.role_id WHERE c.position = 1 AND r.tag <> 'performer'"
      )
    ).toBe(0)
  })

  test("is deterministic for a seed and size, whatever the chunking", async () => {
    await reseed({ chunkSongs: 97, batchSize: 113 })
    expect(await checksums()).toEqual(firstSums)
    await reseed({ seed: 8 })
    const other = await checksums()
    expect(other["songs"]).not.toBe(firstSums["songs"])
    expect(other["artists"]).not.toBe(firstSums["artists"])
    await reseed()
    expect(await checksums()).toEqual(firstSums)
    // grams follow the kept names through TRUNCATE ... CASCADE and the recounts
    for (const unlike of artistNameGramsUnlike) expect(await count(unlike)).toBe(0)
    expect(await count("SELECT count(*)::int AS n FROM artist_name_grams")).toBeGreaterThan(1000)
  }, 120_000)

  test("has every date precision and the days discovery asks for", async () => {
    for (const type of ["FULL", "MONTH", "YEAR"]) {
      expect(await count(`SELECT count(*)::int AS n FROM songs WHERE date_type = '${type}'`)).toBeGreaterThan(0)
    }
    expect(await count("SELECT count(*)::int AS n FROM songs WHERE date_type IS NULL")).toBeGreaterThan(0)
    expect(await count(`SELECT count(*)::int AS n FROM songs WHERE released_at > DATE '${TODAY}'`)).toBe(0)
    expect(await count("SELECT count(*)::int AS n FROM songs WHERE released_at < DATE '1960-01-01'")).toBe(0)
    const visible = `deleted_at IS NULL AND published_at <= TIMESTAMPTZ '${TODAY}T00:00:00Z'`
    expect(
      await count(`SELECT count(*)::int AS n FROM songs WHERE ${visible} AND released_at > DATE '${TODAY}' - 30`)
    ).toBeGreaterThanOrEqual(5)
    // on this day (a leap day) in earlier years
    expect(
      await count(
        `SELECT count(*)::int AS n FROM songs WHERE ${visible} AND date_type = 'FULL'
           AND extract(month FROM released_at) = 2 AND extract(day FROM released_at) = 29 AND released_at < DATE '${TODAY}'`
      )
    ).toBeGreaterThanOrEqual(3)
  })

  test("has hidden rows, namesakes and members of every kind", async () => {
    const now = `TIMESTAMPTZ '${TODAY}T00:00:00Z'`
    expect(await count("SELECT count(*)::int AS n FROM songs WHERE published_at IS NULL")).toBeGreaterThan(0)
    expect(await count(`SELECT count(*)::int AS n FROM songs WHERE published_at > ${now}`)).toBeGreaterThan(0)
    expect(await count("SELECT count(*)::int AS n FROM songs WHERE deleted_at IS NOT NULL")).toBeGreaterThan(0)
    expect(await count(`SELECT count(*)::int AS n FROM albums WHERE published_at IS NULL OR published_at > ${now}`)).toBeGreaterThan(0)
    expect(await count("SELECT count(*)::int AS n FROM song_versions")).toBeGreaterThan(0)
    expect(await count("SELECT count(DISTINCT content_type)::int AS n FROM curated_lists")).toBe(2)
    expect(await count("SELECT count(DISTINCT album_type)::int AS n FROM albums")).toBe(3)
    expect(
      await count("SELECT count(*)::int AS n FROM (SELECT fold_name(name) FROM artists GROUP BY 1 HAVING count(*) > 1) x")
    ).toBeGreaterThan(0)
    expect(await count("SELECT count(*)::int AS n FROM artists WHERE prefix_title IS NOT NULL")).toBeGreaterThan(0)
    expect(await count("SELECT count(*)::int AS n FROM artist_memberships")).toBeGreaterThan(0)
    expect(await count("SELECT count(DISTINCT kind)::int AS n FROM members")).toBe(3)
    expect(await count("SELECT count(*)::int AS n FROM members WHERE username IS NULL")).toBeGreaterThan(0)
    expect(await count("SELECT count(*)::int AS n FROM members WHERE is_banned")).toBeGreaterThan(0)
    expect(await count("SELECT count(*)::int AS n FROM members WHERE email IS NULL")).toBe(0)
    expect(await count("SELECT count(*)::int AS n FROM artists WHERE member_id IS NOT NULL")).toBeGreaterThan(0)
  })

  test("writes URL-safe slugs and well-formed media fields", async () => {
    const slug = "'^[a-z0-9]+(-[a-z0-9]+)*$'"
    for (const table of ["songs", "albums"]) {
      expect(await count(`SELECT count(*)::int AS n FROM ${table} WHERE slug !~ ${slug}`)).toBe(0)
    }
    for (const table of ["artists", "labels"]) {
      expect(await count(`SELECT count(*)::int AS n FROM ${table} WHERE slug !~ ${slug}`)).toBe(0)
    }
    expect(await count("SELECT count(*)::int AS n FROM songs WHERE slug LIKE 'song-%'")).toBeGreaterThan(0)
    expect(
      await count("SELECT count(*)::int AS n FROM songs WHERE artwork_source <> 'Custom' AND artwork_key !~ '^https://'")
    ).toBe(0)
    expect(
      await count("SELECT count(*)::int AS n FROM songs WHERE artwork_source = 'Custom' AND artwork_key !~ '^artwork/songs/[0-9]+[.]jpg$'")
    ).toBe(0)
    expect(await count("SELECT count(*)::int AS n FROM songs WHERE vidsvc_video_id !~ '^[A-Za-z0-9_-]{11}$'")).toBe(0)
    // identity sequences continue after the seeded ids
    const next = await count("SELECT nextval(pg_get_serial_sequence('songs', 'id'))::int AS n")
    expect(next).toBe(SONGS + 1)
  })

  test("leaves every trigger of the seeded tables switched on after the load", async () => {
    const triggers = await count(
      `SELECT count(*)::int AS n FROM pg_trigger t
        WHERE t.tgrelid IN (SELECT to_regclass(name) FROM unnest(ARRAY['${SEED_TABLES.join("','")}']) AS name)
          AND NOT t.tgisinternal`
    )
    expect(triggers).toBeGreaterThan(0)
    const disabled = await count(
      `SELECT count(*)::int AS n FROM pg_trigger t
        WHERE t.tgrelid IN (SELECT to_regclass(name) FROM unnest(ARRAY['${SEED_TABLES.join("','")}']) AS name)
          AND NOT t.tgisinternal AND t.tgenabled = 'D'`
    )
    expect(disabled).toBe(0)
  })

  test("slugify folds diacritics and falls back for non-Latin text", () => {
    expect(slugify("Zainal Abidín", "x")).toBe("zainal-abidin")
    expect(slugify("Dato' Sri Siti", "x")).toBe("dato-sri-siti")
    expect(slugify("Kuala Lumpur-Singapura", "x")).toBe("kuala-lumpur-singapura")
    expect(slugify("月亮代表我的心", "song-9")).toBe("song-9")
    expect(slugify("காதல் நிலா", "song-10")).toBe("song-10")
  })
})
