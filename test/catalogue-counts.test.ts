import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { CatalogueStats } from "../src/Contract/Stats.js"
import { decodeWith, request } from "./support/http.js"
import { clockPassesScheduledSong, expectEveryStepCounted, songsMovedEveryWay } from "./support/keptCountSteps.js"
import { startServer, type TestServer } from "./support/server.js"
import { publicFromOf, rowsUnlike } from "./support/keptRows.js"
import { slow } from "./support/slow.js"

// Its own server and database: the steps below change rows that other test files assert on.
let server: TestServer
beforeAll(async () => {
  server = await startServer()
}, 60_000)
afterAll(async () => {
  await server.stop()
  await server.database.drop()
})

/** What /v1/stats and the browse totals answer, read over HTTP (kept counts). */
const served = async () => {
  const stats = decodeWith(DetailEnvelope(CatalogueStats, "S"), (await request(server.baseUrl, "/v1/stats")).body).data
  const total = async (path: string) => {
    const reply = await request(server.baseUrl, path)
    expect(reply.status).toBe(200)
    return (reply.body as { meta: { total: number } }).meta.total
  }
  return {
    songs: stats.songs,
    artists: stats.artists,
    contributors: stats.contributors,
    credits: stats.credits,
    recent: stats.recent_releases.count,
    browseSongs: await total("/v1/songs?limit=1"),
    browsePop: await total("/v1/songs?genre=pop&limit=1"),
    browseLabel: await total("/v1/songs?label=1&limit=1"),
    browse1997: await total("/v1/songs?year=1997&limit=1"),
    browsePop1997: await total("/v1/songs?genre=pop&year=1997&limit=1"),
    browsePopLabel: await total("/v1/songs?genre=pop&label=1&limit=1"),
    browseThisYear: await total(`/v1/songs?year=${new Date().getUTCFullYear()}&limit=1`),
    browseAlbums: await total("/v1/albums?limit=1"),
    browseAlbumType: await total("/v1/albums?type=album&limit=1"),
    artistSongs: await servedArtistSongs(),
    artistOrdersUnlike: (await server.sql<{ n: number }>(ARTIST_ORDERS_UNLIKE))[0]!.n
  }
}

const ROLES = ["any", "performer", "writer"] as const
/** The credited artists whose songs are listed (hidden ones too: their lists are not found). */
const CREDITED_ARTISTS = "SELECT DISTINCT artist_id AS id FROM credits ORDER BY 1 LIMIT 12"

/** Each credited artist's songs in each role: "status total: ids of the first and the last three". */
const servedArtistSongs = async () => {
  const lines: Array<string> = []
  for (const { id } of await server.sql<{ id: number }>(CREDITED_ARTISTS)) {
    for (const role of ROLES) {
      const first = await request(server.baseUrl, `/v1/artists/${id}/songs?role=${role}&limit=3`)
      if (first.status !== 200) {
        lines.push(`${id} ${role} ${first.status}`)
        continue
      }
      const n = (first.body as { meta: { total: number } }).meta.total
      // the last page comes from the far end of the artist's range
      const last = await request(server.baseUrl, `/v1/artists/${id}/songs?role=${role}&limit=3&offset=${Math.max(n - 3, 0)}`)
      const ids = [...(first.body as { data: Array<{ id: number }> }).data, ...(last.body as { data: Array<{ id: number }> }).data]
      lines.push(`${id} ${role} 200 ${n}: ${ids.map((song) => song.id).join(",")}`)
    }
  }
  return lines.join("\n")
}

/** The same counted over public_artists, credits, roles and public_songs. */
const countedArtistSongs = async () => {
  const lines: Array<string> = []
  for (const { id } of await server.sql<{ id: number }>(CREDITED_ARTISTS)) {
    const [visible] = await server.sql<{ v: boolean }>(`SELECT EXISTS (SELECT 1 FROM public_artists WHERE id = ${id}) AS v`)
    for (const role of ROLES) {
      if (!visible!.v) {
        lines.push(`${id} ${role} 404`)
        continue
      }
      const songs = (await server.sql<{ id: number }>(`SELECT s.id FROM public_songs s
        WHERE EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                      WHERE c.song_id = s.id AND c.artist_id = ${id} AND (${role === "any" ? "true" : `r.tag = '${role}'`}))
        ORDER BY s.released_at DESC, s.id DESC`)).map((song) => song.id)
      const shown = [...songs.slice(0, 3), ...songs.slice(Math.max(songs.length - 3, 0))]
      lines.push(`${id} ${role} 200 ${songs.length}: ${shown.join(",")}`)
    }
  }
  return lines.join("\n")
}

/** rows against the credits, roles and songs as they are now, each set minus the other (0). */
const ARTIST_ORDERS_UNLIKE = rowsUnlike(
  "SELECT song_id, artist_id, released_at, public_from, performer, writer FROM artist_song_orders",
  `SELECT c.song_id, c.artist_id, s.released_at, ${publicFromOf("s")} AS public_from,
          bool_or(r.tag = 'performer') AS performer, bool_or(r.tag = 'writer') AS writer
   FROM credits c JOIN roles r ON r.id = c.role_id JOIN songs s ON s.id = c.song_id
   GROUP BY 1, 2, 3, 4`
)

/** The same numbers counted directly over the public views. */
const counted = async () => {
  const [row] = await server.sql<Awaited<ReturnType<typeof served>>>(`
    SELECT
      (SELECT count(*) FROM public_songs)::int AS songs,
      (SELECT count(*) FROM public_artists)::int AS artists,
      (SELECT count(DISTINCT c.member_id) FROM contributions c
       JOIN public_members m ON m.id = c.member_id JOIN public_songs s ON s.id = c.song_id)::int AS contributors,
      (SELECT count(*) FROM credits c JOIN public_songs s ON s.id = c.song_id)::int AS credits,
      (SELECT count(*) FROM public_songs WHERE released_at > current_date - 30 AND released_at <= current_date)::int AS recent,
      (SELECT count(*) FROM public_songs)::int AS "browseSongs",
      (SELECT count(*) FROM public_songs s JOIN song_genres sg ON sg.song_id = s.id JOIN genres g ON g.id = sg.genre_id
       WHERE g.slug = 'pop')::int AS "browsePop",
      (SELECT count(*) FROM public_songs s JOIN song_labels sl ON sl.song_id = s.id WHERE sl.label_id = 1)::int AS "browseLabel",
      (SELECT count(*) FROM public_songs WHERE extract(year FROM released_at) = 1997)::int AS "browse1997",
      (SELECT count(*) FROM public_songs s JOIN song_genres sg ON sg.song_id = s.id JOIN genres g ON g.id = sg.genre_id
       WHERE g.slug = 'pop' AND extract(year FROM s.released_at) = 1997)::int AS "browsePop1997",
      (SELECT count(*) FROM public_songs s JOIN song_genres sg ON sg.song_id = s.id JOIN genres g ON g.id = sg.genre_id
       JOIN song_labels sl ON sl.song_id = s.id WHERE g.slug = 'pop' AND sl.label_id = 1)::int AS "browsePopLabel",
      (SELECT count(*) FROM public_songs WHERE extract(year FROM released_at) = extract(year FROM current_date))::int
        AS "browseThisYear",
      (SELECT count(*) FROM public_albums)::int AS "browseAlbums",
      (SELECT count(*) FROM public_albums WHERE album_type = 'album')::int AS "browseAlbumType"`)
  return { ...row!, artistSongs: await countedArtistSongs(), artistOrdersUnlike: 0 }
}

describe("kept catalogue counts", () => {
  slow(test, "every kind of change, each followed by every count compared with a count of the rows", 10)("stats and browse totals equal counting the public rows, after every kind of change", async () => {
    const before = await served()
    expect(before).toEqual((await counted())!)
    // the fixture's own numbers (test/meta.test.ts): a test that could not fail would pass on zeros
    expect(before.songs).toBe(70)
    expect(before.artists).toBe(10)
    expect(before.contributors).toBe(2)
    // artists with several songs in a role, and a hidden artist's list not found
    expect(before.artistSongs).toMatch(/ 200 ([4-9]|\d{2,}):/)
    expect(before.artistSongs).toContain(" 404")

    const [future] = await server.sql<{ published_at: string }>("SELECT published_at::text FROM songs WHERE id = 12")
    const steps: Array<[string, string]> = [
      // deleting and restoring a song moves songs, credits, its year and its genre
      ["UPDATE songs SET deleted_at = now() WHERE id = 4", "UPDATE songs SET deleted_at = NULL WHERE id = 4"],
      ["UPDATE songs SET published_at = NULL WHERE id IN (1, 2)",
        "UPDATE songs SET published_at = CASE id WHEN 1 THEN timestamptz '2020-01-01T00:00:00Z' ELSE timestamptz '2020-01-02T00:00:00Z' END WHERE id IN (1, 2)"],
      // the scheduled song becomes public: the artist credited only on hidden songs appears
      ["UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12",
        `UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12`],
      // the clock passes the scheduled song's published_at with no write since (a "due" song)
      clockPassesScheduledSong(12, future!.published_at),
      // the scheduled song's links change while it waits
      ["DELETE FROM song_genres WHERE song_id = 12", "INSERT INTO song_genres (song_id, genre_id) VALUES (12, 1)"],
      ["DELETE FROM credits WHERE song_id = 12",
        "INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (12, 1, 10, 1), (12, 2, 1, 2)"],
      // ... its views and title (its listed row stays as it is), and its release date alone
      [`CREATE TABLE song_12_before AS SELECT title, vidsvc_views FROM songs WHERE id = 12;
        UPDATE songs SET vidsvc_views = 77, title = 'Menunggu' WHERE id = 12`,
        `UPDATE songs s SET title = b.title, vidsvc_views = b.vidsvc_views FROM song_12_before b WHERE s.id = 12;
        DROP TABLE song_12_before`],
      ["UPDATE songs SET released_at = DATE '1997-01-01' WHERE id = 12", "UPDATE songs SET released_at = current_date - 2 WHERE id = 12"],
      ["UPDATE songs SET published_at = now() + interval '1 day', released_at = DATE '1997-01-01' WHERE id = 12",
        `UPDATE songs SET published_at = '${future!.published_at}', released_at = current_date - 2 WHERE id = 12`],
      // a public song becomes scheduled: still live for the triggers, subtracted at read time
      ["UPDATE songs SET published_at = now() + interval '3 days' WHERE id = 7",
        "UPDATE songs SET published_at = '2020-01-07T00:00:00Z' WHERE id = 7"],
      ["UPDATE songs SET published_at = now() - interval '1 day' WHERE id = 10", "UPDATE songs SET published_at = NULL WHERE id = 10"],
      songsMovedEveryWay,
      ["UPDATE songs SET released_at = DATE '1997-02-02' WHERE id = 4", "UPDATE songs SET released_at = DATE '1994-03-15' WHERE id = 4"],
      ["UPDATE songs SET released_at = current_date - 1 WHERE id = 5", "UPDATE songs SET released_at = DATE '1999-09-09' WHERE id = 5"],
      // credits: the only credit of artist 9 moves to the hidden artist
      ["UPDATE credits SET artist_id = 10 WHERE song_id = 7", "UPDATE credits SET artist_id = 9 WHERE song_id = 7"],
      ["DELETE FROM credits WHERE song_id = 6", "INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (6, 1, 8, 1)"],
      // albums: the hidden album names artist 10; publishing it, scheduling it, retyping it
      ["UPDATE albums SET published_at = now() - interval '1 hour' WHERE id = 3", "UPDATE albums SET published_at = NULL WHERE id = 3"],
      ["UPDATE albums SET published_at = now() + interval '1 hour' WHERE id = 3", "UPDATE albums SET published_at = NULL WHERE id = 3"],
      ["UPDATE albums SET album_type = 'ep' WHERE id = 1", "UPDATE albums SET album_type = 'album' WHERE id = 1"],
      ["INSERT INTO album_artists (album_id, position, artist_id) VALUES (4, 1, 10)",
        "DELETE FROM album_artists WHERE album_id = 4"],
      ["INSERT INTO albums (id, title, slug, album_type, published_at) VALUES (900, 'New', 'new', 'album', now())",
        "DELETE FROM albums WHERE id = 900"],
      // contributors: banning, losing the handle, a contribution moving to a hidden song
      ["UPDATE members SET is_banned = true WHERE id = 1", "UPDATE members SET is_banned = false WHERE id = 1"],
      // zul's every contribution onto the scheduled song: live, but not a public contributor
      ["UPDATE contributions SET song_id = 12 WHERE id IN (6, 300)",
        "UPDATE contributions SET song_id = CASE id WHEN 6 THEN 2 ELSE 3 END WHERE id IN (6, 300)"],
      ["INSERT INTO contributions (id, member_id, song_id, action) VALUES (900, 100, 2, 'edit')",
        "DELETE FROM contributions WHERE id = 900"],
      // a new song with its links, then all removed
      [`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (900, 'Baru', 'baru', current_date, now());
        INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (900, 1, 10, 1);
        INSERT INTO song_genres (song_id, genre_id) VALUES (900, 1)`,
        `DELETE FROM credits WHERE song_id = 900; DELETE FROM song_genres WHERE song_id = 900; DELETE FROM songs WHERE id = 900`]
    ]
    await expectEveryStepCounted((s) => server.sql(s), steps, async () => ({ served: await served(), counted: (await counted())! }), before)
  })

  test("a recount from scratch gives the counts the triggers kept", async () => {
    const [kept] = await server.sql("SELECT * FROM catalogue_counts")
    const [years] = await server.sql<{ n: number }>("SELECT count(*)::int AS n FROM song_date_counts WHERE live_songs <> 0")
    await server.sql("SELECT recount_catalogue_counts()")
    expect((await server.sql("SELECT * FROM catalogue_counts"))[0]).toEqual(kept!)
    expect((await server.sql<{ n: number }>("SELECT count(*)::int AS n FROM song_date_counts"))[0]!.n).toBe(years!.n)
    // and the per-owner counts songs_count_trigger() moves
    const perOwner = `
      SELECT 'member' AS kind, member_id AS id, live AS n FROM member_contribution_counts WHERE live <> 0
      UNION ALL SELECT 'label songs', label_id, live_songs FROM label_counts WHERE live_songs <> 0
      UNION ALL SELECT 'label albums', label_id, live_albums FROM label_counts WHERE live_albums <> 0
      UNION ALL SELECT 'genre', genre_id, live_songs FROM genre_counts WHERE live_songs <> 0
      UNION ALL SELECT 'artist credits', artist_id, live_credits FROM artist_counts WHERE live_credits <> 0
      UNION ALL SELECT 'artist album credits', artist_id, live_album_credits FROM artist_counts WHERE live_album_credits <> 0
      UNION ALL SELECT 'artist settled songs', artist_id, settled_songs FROM artist_song_counts WHERE settled_songs <> 0
      UNION ALL SELECT 'member settled', member_id, settled FROM member_settled_contributions WHERE settled <> 0
      UNION ALL SELECT 'artist role ' || role_id, artist_id, settled_songs FROM artist_role_song_counts WHERE settled_songs <> 0
      UNION ALL SELECT 'artist tag ' || tag, artist_id, settled_songs FROM artist_tag_song_counts WHERE settled_songs <> 0
      UNION ALL SELECT 'label settled', label_id, settled_songs FROM label_song_counts WHERE settled_songs <> 0
      UNION ALL SELECT 'genre settled', genre_id, settled_songs FROM genre_song_counts WHERE settled_songs <> 0
      UNION ALL SELECT 'facet ' || genre_id || '/' || label_id, year, live_songs FROM song_facet_counts WHERE live_songs <> 0
      ORDER BY 1, 2, 3`
    const keptPerOwner = await server.sql(perOwner)
    expect(keptPerOwner.length).toBeGreaterThan(20)
    await server.sql("SELECT recount_public_counts(), recount_catalogue_counts()")
    await server.sql("SELECT recount_artist_song_counts(), recount_member_settled_contributions(), recount_artist_role_counts()")
    await server.sql("SELECT recount_link_song_counts(), recount_song_facet_counts()")
    expect(await server.sql(perOwner)).toEqual(keptPerOwner)
    expect(await server.sql("SELECT song_id, artist_ids, genre_ids FROM scheduled_song_links_now")).toEqual([
      { song_id: 12, artist_ids: [10, 1], genre_ids: [1] }
    ])
  })

  test("a scheduled song's row is rewritten when its dates or state change, not its views or title", async () => {
    // the row's version: a rewrite (delete and insert, the kept counts moved twice) gives a new one
    const version = async () =>
      (await server.sql<{ v: string }>("SELECT xmin::text AS v FROM scheduled_song_links WHERE song_id = 12"))[0]?.v
    const first = await version()
    expect(first).toBeDefined()
    await server.sql("UPDATE songs SET vidsvc_views = coalesce(vidsvc_views, 0) + 1, title = title || ' ' WHERE id = 12")
    expect(await version()).toBe(first)
    await server.sql("UPDATE songs SET released_at = released_at - 1 WHERE id = 12")
    const redated = await version()
    expect(redated).not.toBe(first)
    await server.sql("UPDATE songs SET released_at = released_at + 1, vidsvc_views = vidsvc_views - 1, title = rtrim(title) WHERE id = 12")
    expect(await version()).not.toBe(redated)
  })
})
