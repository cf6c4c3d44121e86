import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { clockPassesScheduledSong, expectEveryStepCounted } from "./support/keptCountSteps.js"
import { startServer, type TestServer } from "./support/server.js"

// Its own server and database: the steps below change rows that other test files assert on.
let server: TestServer
beforeAll(async () => {
  server = await startServer()
  // buckets of 3 songs: the fixture's ~70 public songs in ~25 buckets a sort
  await server.sql("SELECT recount_song_sort_buckets(3)")
}, 60_000)
afterAll(async () => {
  await server.stop()
  await server.database.drop()
})

/** Each sort's bucket table, seek function and key. */
const sorts = [
  { table: "song_released_buckets", seek: "public_song_released_seek", key: "s.released_at" },
  { table: "song_popular_buckets", seek: "public_song_popular_seek", key: "coalesce(s.vidsvc_views, -1)" },
  { table: "song_title_buckets", seek: "public_song_title_seek", key: "lower(s.title)" }
] as const

type Seeks = Record<string, ReadonlyArray<{ p: number; bound_key: string; bound_id: number; songs_before: number }>>

/** For every position of the public songs: the bucket bound the kept counts seek and the songs before it. */
const ALL_POSITIONS = "generate_series(0, (SELECT count(*) FROM public_songs) - 1)"

const served = async (positions = ALL_POSITIONS): Promise<Seeks> => {
  const seeks: Record<string, Seeks[string]> = {}
  for (const sort of sorts) {
    seeks[sort.table] = await server.sql(`
      SELECT p::int, x.bound_key::text, x.bound_id, x.songs_before::int
      FROM ${positions} p CROSS JOIN LATERAL ${sort.seek}(p) x ORDER BY p`)
  }
  return seeks
}

/** The same counted over public_songs: the last bound with at most `p` public songs before it. */
const counted = async (positions = ALL_POSITIONS): Promise<Seeks> => {
  const seeks: Record<string, Seeks[string]> = {}
  for (const sort of sorts) {
    seeks[sort.table] = await server.sql(`
      WITH bounds AS (
        SELECT b.sort_key, b.song_id,
          (SELECT count(*) FROM public_songs s WHERE (${sort.key}, s.id) < (b.sort_key, b.song_id))::int AS songs_before
        FROM ${sort.table} b)
      SELECT p::int, x.sort_key::text AS bound_key, x.song_id AS bound_id, x.songs_before
      FROM ${positions} p
      CROSS JOIN LATERAL (SELECT * FROM bounds WHERE songs_before <= p ORDER BY sort_key DESC, song_id DESC LIMIT 1) x
      ORDER BY p`)
  }
  return seeks
}

/** A few deep pages of /v1/songs in every order, as ids, and the same read from public_songs. */
const pages = async () => {
  const orders: ReadonlyArray<[string, string]> = [
    ["sort=released", "released_at DESC, id DESC"],
    ["sort=popular&order=asc", "coalesce(vidsvc_views, -1) ASC, id ASC"],
    ["sort=title&order=desc", "lower(title) DESC, id DESC"]
  ]
  const served: Array<unknown> = []
  const counted: Array<unknown> = []
  for (const [query, order] of orders) {
    const ids = (await server.sql<{ id: number }>(`SELECT id FROM public_songs ORDER BY ${order}`)).map((r) => r.id)
    for (const offset of [1000, ids.length - 1000, ids.length - 1]) {
      if (offset < 1000) continue
      const reply = await request(server.baseUrl, `/v1/songs?${query}&limit=5&offset=${offset}`)
      served.push({ query, offset, ids: (reply.body as { data: Array<{ id: number }> }).data.map((r) => r.id) })
      counted.push({ query, offset, ids: ids.slice(offset, offset + 5) })
    }
  }
  return { served, counted }
}

describe("kept sort buckets", () => {
  test("every position's seek equals counting the public songs, after every kind of write", async () => {
    const before = await served()
    expect(before).toEqual(await counted())
    // a test that could not fail would pass on one bucket
    for (const sort of sorts) expect(new Set(before[sort.table]!.map((x) => x.bound_id)).size).toBeGreaterThan(10)

    // each undo puts the changed columns back from a copy taken now
    await server.sql("CREATE TABLE songs_before AS SELECT * FROM songs")
    const restore = (columns: string, ids: string) =>
      `UPDATE songs SET (${columns}) = (SELECT ${columns} FROM songs_before b WHERE b.id = songs.id) WHERE id IN (${ids})`
    const steps: Array<[string, string]> = [
      ["UPDATE songs SET deleted_at = now() WHERE id = 4", restore("deleted_at", "4")],
      ["UPDATE songs SET published_at = NULL WHERE id IN (1, 2, 120)", restore("published_at", "1, 2, 120")],
      // the scheduled song is published now, and the clock passes it with no write (a due song)
      ["UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12", restore("published_at", "12")],
      clockPassesScheduledSong(12, (await server.sql<{ at: string }>("SELECT published_at::text AS at FROM songs WHERE id = 12"))[0]!.at),
      // a public song becomes scheduled, and its views change while it waits
      ["UPDATE songs SET published_at = now() + interval '3 days', vidsvc_views = 123456 WHERE id = 7",
        restore("published_at, vidsvc_views", "7")],
      // popularity, title and date changes move songs between buckets
      ["UPDATE songs SET vidsvc_views = coalesce(vidsvc_views, 0) + 1000000 WHERE id BETWEEN 100 AND 130",
        restore("vidsvc_views", "SELECT generate_series(100, 130)")],
      ["UPDATE songs SET vidsvc_views = NULL WHERE id IN (1, 101)", restore("vidsvc_views", "1, 101")],
      ["UPDATE songs SET title = 'ZZZ ' || title, released_at = (released_at - interval '10 years')::date WHERE id IN (3, 140, 141)",
        restore("title, released_at", "3, 140, 141")],
      // a new public song and a new scheduled one, then both gone
      [`INSERT INTO songs (id, title, slug, released_at, published_at, vidsvc_views) VALUES
          (900, 'Baru', 'baru', current_date, now(), 5), (901, 'Nanti', 'nanti', current_date, now() + interval '1 day', 7)`,
        "DELETE FROM songs WHERE id IN (900, 901)"]
    ]
    await expectEveryStepCounted((s) => server.sql(s), steps, async () => ({ served: await served(), counted: await counted() }), before)
  }, 120_000)

  test("deep offset pages sought by the buckets serve the rows of that offset", async () => {
    // ~1,100 more public songs with equal keys in runs, so pages at offset 1,000+ seek
    await server.sql(`
      INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views)
      SELECT n, 'Deep ' || (n % 37), 'deep-' || n, date '2000-01-01' + (n % 53), 'FULL', now() - interval '1 day',
             CASE WHEN n % 3 = 0 THEN NULL ELSE n % 41 END
      FROM generate_series(20000, 21099) AS n`)
    const kept = await pages()
    expect(kept.served).toEqual(kept.counted)
    await server.sql("SELECT recount_song_sort_buckets(7)")
    const recounted = await pages()
    expect(recounted.served).toEqual(recounted.counted)
    const some = "unnest(ARRAY[0, 1, 2, 500, 999, 1000, 1001, (SELECT count(*) FROM public_songs) - 1])"
    expect(await served(some)).toEqual(await counted(some))
  }, 120_000)
})
