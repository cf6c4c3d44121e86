import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { clockPassesScheduledSong } from "./support/keptCountSteps.js"
import { startServer, type TestServer } from "./support/server.js"

/**
 * /v1/artists/namesake-hints' role and best-known song (src/Artists/Repo.ts): a prolific artist's
 * best song is found by walking the catalogue's popular order (its public songs squared reach the
 * public songs), a rarer one's by collecting its songs. Both must give what the definition says,
 * computed here over public_songs: the role with the most public songs, the song with the most
 * views, then the earliest, then the lowest id; hidden songs (a draft, a scheduled one, a deleted
 * one, each with the most views) never count.
 */
const catalogue = [
  `INSERT INTO artists (id, name, slug) VALUES
     (8001, 'Kembar Nama', 'kembar-nama-1'), (8002, 'Kembar  Nama', 'kembar-nama-2'),
     (8003, 'Sama Sama', 'sama-sama-1'), (8004, 'Sama-Sama', 'sama-sama-2')`,
  // 8001: 80 public songs, views 0..79 with NULLs among them; two songs share the most public views
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views)
   SELECT 400000 + n, 'Lagu Kembar ' || n, 'lagu-kembar-' || n, date '2000-01-01' + n, 'FULL', now() - interval '1 day',
          CASE WHEN n % 7 = 0 THEN NULL ELSE n % 60 END
   FROM generate_series(1, 80) AS n`,
  // the most views of all, but hidden: a draft, a scheduled song, a deleted one
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at, deleted_at, vidsvc_views) VALUES
     (400101, 'Draf', 'draf-kembar', date '1990-01-01', 'FULL', NULL, NULL, 1000000),
     (400102, 'Nanti', 'nanti-kembar', date '1990-01-01', 'FULL', now() + interval '3 days', NULL, 1000000),
     (400103, 'Padam', 'padam-kembar', date '1990-01-01', 'FULL', now() - interval '9 days', now() - interval '1 day', 1000000)`,
  // 8001 sings 50 of them and composes 40 (a song in both roles counts once for each)
  `INSERT INTO credits (song_id, position, artist_id, role_id)
   SELECT 400000 + n, 1, 8001, CASE WHEN n <= 50 THEN 1 ELSE 3 END FROM generate_series(1, 80) AS n`,
  `INSERT INTO credits (song_id, position, artist_id, role_id)
   SELECT 400000 + n, 2, 8001, 3 FROM generate_series(41, 50) AS n`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) VALUES
     (400101, 1, 8001, 4), (400102, 1, 8001, 4), (400103, 1, 8001, 4)`,
  // 8002: two songs of the same views and date (the lower id wins), and one of 8001's
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views) VALUES
     (400201, 'Pertama', 'pertama-kembar', date '2010-05-05', 'FULL', now() - interval '1 day', 500),
     (400202, 'Kedua', 'kedua-kembar', date '2010-05-05', 'FULL', now() - interval '1 day', 500)`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) VALUES
     (400202, 1, 8002, 4), (400201, 1, 8002, 4), (400010, 2, 8002, 2)`,
  // 8003 and 8004: a song each without views; 8004 also has a scheduled song
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views) VALUES
     (400301, 'Tanpa Tontonan', 'tanpa-tontonan', date '2015-01-01', 'FULL', now() - interval '1 day', NULL),
     (400302, 'Esok', 'esok-kembar', date '2014-01-01', 'FULL', now() + interval '1 day', 9)`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (400301, 1, 8003, 6), (400301, 2, 8004, 5), (400302, 1, 8004, 1)`,
  // 8003: a scheduled song in two roles, the most viewed, due in a day
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views) VALUES
     (400401, 'Lusa', 'lusa-kembar', date '2016-01-01', 'FULL', timestamptz '2031-01-01', 90000)`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (400401, 1, 8003, 4), (400401, 2, 8003, 1)`
]

let server: TestServer
beforeAll(async () => {
  server = await startServer({ statements: catalogue })
}, 60_000)
afterAll(() => server.close())

const IDS = [8001, 8002, 8003, 8004]

/** The hints by their definition, over public_songs. */
const expected = async () => [
  ...await server.sql<{ id: number; role: string; song: string; song_year: number }>(`
    SELECT a.id,
      coalesce((SELECT r.title FROM credits c JOIN public_songs s ON s.id = c.song_id JOIN roles r ON r.id = c.role_id
                WHERE c.artist_id = a.id GROUP BY r.id ORDER BY count(DISTINCT c.song_id) DESC, r.sort_order, r.id LIMIT 1),
               'Album artist') AS role,
      coalesce(b.title, '') AS song, coalesce(extract(year FROM b.released_at)::int, 0) AS song_year
    FROM unnest($1::int[]) WITH ORDINALITY AS x(id, ord) JOIN artists a ON a.id = x.id
    LEFT JOIN LATERAL (
      SELECT s.title, s.released_at FROM public_songs s WHERE s.id IN (SELECT c.song_id FROM credits c WHERE c.artist_id = a.id)
      ORDER BY s.vidsvc_views DESC NULLS LAST, s.released_at, s.id LIMIT 1) b ON true
    ORDER BY x.ord`, [IDS])
]

/** Whether each artist's best song is walked for (its settled songs squared reach the public songs). */
const walked = async () =>
  (await server.sql<{ id: number; walk: boolean }>(`
    SELECT c.artist_id AS id, c.settled_songs::bigint * c.settled_songs >= (SELECT songs FROM public_catalogue_counts) AS walk
    FROM artist_song_counts c WHERE c.artist_id = ANY ($1::int[]) ORDER BY c.artist_id`, [IDS])).map((row) => [row.id, row.walk])

const served = async () => {
  const reply = await request(server.baseUrl, `/v1/artists/namesake-hints?ids=${IDS.join(",")}`)
  expect(reply.status).toBe(200)
  return (reply.body as { data: Array<{ id: number; role: string; song: string; song_year: number }> }).data
    .map(({ id, role, song, song_year }) => ({ id, role, song, song_year }))
}

describe("namesake hints: the role and the best-known song", () => {
  test("a scheduled song counts once the clock passes its time, with no write", async () => {
    const [due, back] = clockPassesScheduledSong(400401, "2031-01-01T00:00:00Z")
    expect((await served())[2]).toEqual({ id: 8003, role: "Guitar", song: "Tanpa Tontonan", song_year: 2015 })
    await server.sql(due)
    // a song in each of three roles: the first by sort order; the due song has the most views
    expect((await served())[2]).toEqual({ id: 8003, role: "Vocals", song: "Lusa", song_year: 2016 })
    expect(await served()).toEqual(await expected())
    await server.sql(back)
    expect((await served())[2]).toEqual({ id: 8003, role: "Guitar", song: "Tanpa Tontonan", song_year: 2015 })
  })

  test("both ways give the definition's answer", async () => {
    expect(await walked()).toEqual([[8001, true], [8002, false], [8003, false], [8004, false]])
    const hints = await served()
    expect(hints).toEqual(await expected())
    // spelled out: the most sung role and the song of 59 views; of two songs alike, the lower id; a song without views
    expect(hints.map((h) => [h.role, h.song])).toEqual([
      ["Vocals", "Lagu Kembar 59"],
      ["Lyricist", "Pertama"],
      ["Guitar", "Tanpa Tontonan"],
      ["Producer", "Tanpa Tontonan"]
    ])
  })

  test("after the views and the songs' states change, still the definition's", async () => {
    // ties at the most views: the earliest wins; then every public song of 8001 without views
    await server.sql(`UPDATE songs SET vidsvc_views = 70 WHERE id IN (400033, 400012)`)
    expect(await served()).toEqual(await expected())
    expect((await served())[0]!.song).toBe("Lagu Kembar 12")
    await server.sql(`UPDATE songs SET vidsvc_views = NULL WHERE id BETWEEN 400001 AND 400080`)
    expect(await served()).toEqual(await expected())
    expect((await served())[0]!.song).toBe("Lagu Kembar 1")
    // the deleted song comes back; then the scheduled one (as many views, the same day, a lower id) falls due
    await server.sql(`UPDATE songs SET deleted_at = NULL WHERE id = 400103`)
    expect(await served()).toEqual(await expected())
    expect((await served())[0]!.song).toBe("Padam")
    await server.sql(`UPDATE songs SET published_at = now() - interval '1 minute' WHERE id = 400102`)
    expect(await served()).toEqual(await expected())
    expect((await served())[0]!.song).toBe("Nanti")
  })
})
