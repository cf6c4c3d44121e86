import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { walkByCursor } from "./support/pages.js"
import { startServer, type TestServer } from "./support/server.js"
import { everyKindOfChange, expectEveryStepCounted } from "./support/keptCountSteps.js"
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

interface Listed {
  readonly total: number
  readonly bySongs: ReadonlyArray<[number, number]>
  readonly byName: ReadonlyArray<[number, number]>
  /** by name (kept name order) three at a time through next_cursor, and offset 4 limit 3 */
  readonly byNameCursor: ReadonlyArray<number>
  readonly byNameOffset: ReadonlyArray<number>
  /** by songs three at a time, by offset and through next_cursor (the walk gives the page itself) */
  readonly bySongsPaged: { readonly byOffset: ReadonlyArray<number>; readonly byCursor: ReadonlyArray<number> }
  /** per short query (kept names): q's total, by songs as [id, song_count], by name as ids */
  readonly named: Record<string, { total: number; bySongs: ReadonlyArray<[number, number]>; byName: ReadonlyArray<number> }>
  readonly users: ReadonlyArray<[string, number]>
  readonly userTotal: number
  /**
   * per visible artist: the detail's roles as [slug, count], and the totals of songs?role=performer / writer
   *; the detail's album_count, the albums list's total and its album ids in order
   */
  readonly perArtist: Record<number, {
    roles: ReadonlyArray<[string, number]>
    performer: number
    writer: number
    albumCount: number
    albums: { total: number; ids: ReadonlyArray<number> }
  }>
}

/** `q` of one and two characters: no trigram, so the kept names answer them */
const SHORT_QUERIES = ["a", "zz", "xq"]

/** /v1/artists by songs and by name, as [id, song_count]; /v1/users as [username, contribution_count]. */
const served = async (): Promise<Listed> => {
  const page = async (path: string) => {
    const reply = await request(server.baseUrl, path)
    expect(reply.status).toBe(200)
    const body = reply.body as { meta: { total: number }; data: Array<{ id: number; song_count: number }> }
    return { total: body.meta.total, items: body.data.map((a): [number, number] => [a.id, a.song_count]) }
  }
  const bySongs = await page("/v1/artists?sort=songs&limit=50")
  const byName = await page("/v1/artists?sort=name&limit=50")
  expect(byName.total).toBe(bySongs.total)
  /** the ids of a sort three at a time through next_cursor */
  const byCursor = async (sort: string) =>
    ((await walkByCursor(server.baseUrl, `/v1/artists?sort=${sort}`, 3)) as Array<{ id: number }>).map((a) => a.id)
  const byNameCursor = await byCursor("name")
  // every page by offset: those past the middle read from the end of each part (fromNearerEnd)
  const byNameOffset: Array<number> = []
  for (let offset = 0; offset < byName.total + 3; offset += 3) {
    byNameOffset.push(...(await page(`/v1/artists?sort=name&offset=${offset}&limit=3`)).items.map(([id]) => id))
  }
  expect((await page("/v1/artists?sort=name&offset=2147483647")).items).toEqual([])
  const bySongsByOffset: Array<number> = []
  for (let offset = 0; offset < bySongs.total + 3; offset += 3) {
    bySongsByOffset.push(...(await page(`/v1/artists?sort=songs&offset=${offset}&limit=3`)).items.map(([id]) => id))
  }
  // past int4 once the limit is added: the walk skips in bigint, due songs or not
  expect((await page("/v1/artists?sort=songs&offset=2147483647")).items).toEqual([])
  const bySongsByCursor = await byCursor("songs")
  const named: Listed["named"] = {}
  for (const q of SHORT_QUERIES) {
    const songs = await page(`/v1/artists?q=${q}&sort=songs&limit=50`)
    const names = await page(`/v1/artists?q=${q}&sort=name&limit=50`)
    expect(names.total).toBe(songs.total)
    named[q] = { total: songs.total, bySongs: songs.items, byName: names.items.map(([id]) => id) }
  }
  const users = await request(server.baseUrl, "/v1/users?sort=contributions&limit=50")
  expect(users.status).toBe(200)
  const usersBody = users.body as { meta: { total: number }; data: Array<{ username: string; contribution_count: number }> }
  const members = usersBody.data
  const perArtist: Listed["perArtist"] = {}
  for (const [id] of byName.items) {
    const detail = await request(server.baseUrl, `/v1/artists/${id}`)
    expect(detail.status).toBe(200)
    const total = async (role: string) => {
      const reply = await request(server.baseUrl, `/v1/artists/${id}/songs?role=${role}&limit=1`)
      expect(reply.status).toBe(200)
      return (reply.body as { meta: { total: number } }).meta.total
    }
    const shown = (detail.body as { data: { roles: Array<{ slug: string; count: number }>; album_count: number } }).data
    const albums = await request(server.baseUrl, `/v1/artists/${id}/albums?limit=50`)
    expect(albums.status).toBe(200)
    const albumsBody = albums.body as { meta: { total: number }; data: Array<{ id: number }> }
    perArtist[id] = {
      roles: shown.roles.map((r): [string, number] => [r.slug, r.count]),
      performer: await total("performer"),
      writer: await total("writer"),
      albumCount: shown.album_count,
      albums: { total: albumsBody.meta.total, ids: albumsBody.data.map((al) => al.id) }
    }
  }
  return {
    total: bySongs.total,
    bySongs: bySongs.items,
    byName: byName.items,
    byNameCursor,
    byNameOffset,
    bySongsPaged: { byOffset: bySongsByOffset, byCursor: bySongsByCursor },
    named,
    users: members.map((m): [string, number] => [m.username, m.contribution_count]),
    userTotal: usersBody.meta.total,
    perArtist
  }
}

/** The same lists counted directly over the public views. */
const counted = async (): Promise<Listed> => {
  const rows = await server.sql<{ id: number; songs: number; name: string; folded: ReadonlyArray<string> }>(`
    SELECT a.id, lower(a.name) AS name, ARRAY[a.search_name, a.search_full_name] AS folded,
      (SELECT count(DISTINCT c.song_id) FROM credits c JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = a.id)::int AS songs
    FROM public_artists a`)
  const members = await server.sql<{ username: string; n: number }>(`
    SELECT m.username, (SELECT count(*) FROM contributions c JOIN public_songs s ON s.id = c.song_id WHERE c.member_id = m.id)::int AS n
    FROM public_members m ORDER BY n DESC, lower(m.username) DESC LIMIT 50`)
  const roleRows = await server.sql<{ id: number; slug: string; n: number }>(`
    SELECT a.id, r.slug, count(DISTINCT c.song_id)::int AS n
    FROM public_artists a JOIN credits c ON c.artist_id = a.id JOIN public_songs s ON s.id = c.song_id JOIN roles r ON r.id = c.role_id
    GROUP BY a.id, r.id, r.slug, r.sort_order ORDER BY a.id, n DESC, r.sort_order, r.id`)
  const tagRows = await server.sql<{ id: number; tag: string; n: number }>(`
    SELECT a.id, r.tag, count(DISTINCT c.song_id)::int AS n
    FROM public_artists a JOIN credits c ON c.artist_id = a.id JOIN public_songs s ON s.id = c.song_id JOIN roles r ON r.id = c.role_id
    GROUP BY a.id, r.tag`)
  // an artist's albums (docs/api.md): public albums naming the artist, and public albums naming
  // nobody on which the artist performs a public song; newest first, undated last
  const albumRows = await server.sql<{ artist_id: number; id: number }>(`
    SELECT a.id AS artist_id, al.id FROM public_artists a JOIN public_albums al
      ON EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = al.id AND aa.artist_id = a.id)
      OR (NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = al.id)
          AND EXISTS (SELECT 1 FROM album_tracks t JOIN public_songs s ON s.id = t.song_id JOIN credits c ON c.song_id = s.id
                      JOIN roles r ON r.id = c.role_id WHERE t.album_id = al.id AND c.artist_id = a.id AND r.tag = 'performer'))
    ORDER BY a.id, coalesce(iso_date(al.released_at), '') DESC, al.id DESC`)
  const perArtist: Listed["perArtist"] = {}
  for (const a of rows) {
    const tag = (t: string) => tagRows.find((x) => x.id === a.id && x.tag === t)?.n ?? 0
    const albums = albumRows.filter((x) => x.artist_id === a.id).map((x) => x.id)
    perArtist[a.id] = {
      roles: roleRows.filter((x) => x.id === a.id).map((x): [string, number] => [x.slug, x.n]),
      performer: tag("performer"),
      writer: tag("writer"),
      albumCount: albums.length,
      albums: { total: albums.length, ids: albums }
    }
  }
  const bySongs = [...rows].sort((x, y) => y.songs - x.songs || x.id - y.id)
  const byName = [...rows].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.id - y.id))
  return {
    total: rows.length,
    bySongs: bySongs.map((a): [number, number] => [a.id, a.songs]),
    byName: byName.map((a): [number, number] => [a.id, a.songs]),
    byNameCursor: byName.map((a) => a.id),
    byNameOffset: byName.map((a) => a.id),
    bySongsPaged: { byOffset: bySongs.map((a) => a.id), byCursor: bySongs.map((a) => a.id) },
    named: Object.fromEntries(SHORT_QUERIES.map((q) => {
      const matches = (a: (typeof rows)[number]) => a.folded.some((name) => name.includes(q))
      return [q, {
        total: rows.filter(matches).length,
        bySongs: bySongs.filter(matches).map((a): [number, number] => [a.id, a.songs]),
        byName: byName.filter(matches).map((a) => a.id)
      }]
    })),
    users: members.map((m): [string, number] => [m.username, m.n]),
    userTotal: (await server.sql<{ n: number }>("SELECT count(*)::int AS n FROM public_members"))[0]!.n,
    perArtist
  }
}

describe("kept sort counts (artists' songs, members' contributions, artists' roles, artists' albums, artists' name order)", () => {
  slow(test, "every kind of change, each followed by the lists compared with a count of the rows", 10)("the artists and users lists equal counting the public rows, after every kind of change", async () => {
    const before = await served()
    expect(before).toEqual(await counted())
    // the fixture's numbers: a test that could not fail would pass on an empty list
    expect(before.total).toBe(10)
    expect(before.named["a"]!.total).toBeGreaterThan(2)
    expect(before.named["a"]!.total).toBeLessThan(before.total)
    expect(before.bySongs[0]![1]).toBeGreaterThan(1)
    expect(Object.values(before.perArtist).filter((a) => a.roles.length > 1 && a.writer > 0 && a.performer > 0).length).toBeGreaterThan(0)
    expect(Object.values(before.perArtist).filter((a) => a.albumCount > 0).length).toBeGreaterThan(2)

    const steps = await everyKindOfChange(server.sql)
    await expectEveryStepCounted((s) => server.sql(s), steps, async () => ({ served: await served(), counted: await counted() }), before)
  })

  test("a recount from scratch gives the counts the triggers kept", async () => {
    const kept = await server.sql("SELECT * FROM artist_song_counts ORDER BY artist_id")
    const [totals] = await server.sql("SELECT * FROM artist_song_totals")
    await server.sql("SELECT recount_artist_song_counts()")
    expect(await server.sql("SELECT * FROM artist_song_counts ORDER BY artist_id")).toEqual(kept)
    expect((await server.sql("SELECT * FROM artist_song_totals"))[0]).toEqual(totals!)
    // each table's rows but those at zero, then all of them after the recount
    const recounted = async (recount: string, tables: ReadonlyArray<readonly [table: string, kept: string, order: string]>) => {
      const before = await Promise.all(tables.map(([table, kept, order]) => server.sql(`SELECT * FROM ${table} WHERE ${kept} ORDER BY ${order}`)))
      expect(before.every((rows) => rows.length > 0)).toBe(true)
      await server.sql(`SELECT ${recount}()`)
      for (const [i, [table, , order]] of tables.entries()) {
        expect(await server.sql(`SELECT * FROM ${table} ORDER BY ${order}`)).toEqual(before[i]!)
      }
    }
    await recounted("recount_artist_role_counts", [
      ["artist_role_song_counts", "settled_songs <> 0", "artist_id, role_id"],
      ["artist_tag_song_counts", "settled_songs <> 0", "artist_id, tag"]
    ])
    await recounted("recount_artist_album_links", [
      ["artist_album_links", "true", "artist_id, album_id"],
      ["artist_album_counts", "live_albums <> 0", "artist_id"]
    ])
    await recounted("recount_member_settled_contributions", [["member_settled_contributions", "settled <> 0", "member_id"]])
  })
})
