import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { SEARCH_TOTAL_BOUND } from "../src/Contract/SearchHit.js"
import { SearchResults } from "../src/Search/Api.js"
import { decodeWith, request } from "./support/http.js"
import { startServer, type TestServer } from "./support/server.js"
import { rowsUnlike } from "./support/keptRows.js"

// Its own server and database: the steps below change rows that other test files search for.
let server: TestServer
beforeAll(async () => {
  server = await startServer()
}, 60_000)
afterAll(async () => {
  await server.stop()
  await server.database.drop()
}, 60_000)

const Response = DetailEnvelope(SearchResults, "SearchResponse")
const search = async (query: string) => {
  const reply = await request(server.baseUrl, `/v1/search?${query}`)
  expect(reply.status).toBe(200)
  return decodeWith(Response, reply.body).data
}
const songs = async (text: string, limit = 5) =>
  (await search(`q=${encodeURIComponent(text)}&types=songs&limit=${limit}`)).songs!

/**
 * Rows of the search tables that a fill from scratch would not write, and the reverse; the
 * postings' words missing from the known words or their variants (and the forms that are there);
 * and the known words' Tamil keys missing.
 */
const drift = async () => {
  const [docs] = await server.sql<{ n: number }>(`
    WITH fresh AS (
      SELECT kind, id, title_words, other_words, album_words, album_from, title_text, popularity, public_from, handle FROM search_sources)
    ${rowsUnlike("SELECT kind, id, title_words, other_words, album_words, album_from, title_text, popularity, public_from, handle FROM search_docs", "TABLE fresh")}`)
  const [postings] = await server.sql<{ n: number }>(`
    WITH fresh AS (
      SELECT p.* FROM search_sources d
      CROSS JOIN LATERAL search_doc_postings(d.kind, d.id, d.title_words, d.other_words, d.album_words, d.album_from, d.title_text, d.popularity, d.public_from, d.handle) p)
    ${rowsUnlike("TABLE search_postings", "TABLE fresh")}`)
  const [words] = await server.sql<{ n: number }>(`
    SELECT count(*)::int AS n FROM (SELECT DISTINCT word FROM search_postings) p
    WHERE search_is_form(p.word) = (EXISTS (SELECT 1 FROM search_words w WHERE w.word = p.word)
      OR EXISTS (SELECT 1 FROM search_word_variants v WHERE v.variant = p.word AND v.word = p.word AND v.deletions = 0))`)
  const [keys] = await server.sql<{ n: number }>(`
    SELECT count(*)::int AS n FROM search_words w
    WHERE (search_tamil_key(w.word) IS NOT NULL)
      <> EXISTS (SELECT 1 FROM search_word_keys k WHERE k.key = search_tamil_key(w.word) AND k.word = w.word)`)
  return docs!.n + postings!.n + words!.n + keys!.n
}

const addSongs = (from: number, to: number, title: string, publishedAt = "2020-01-01T00:00:00Z") =>
  server.sql(
    `INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views)
     SELECT n, $1 || ' ' || n, 'song-' || n, date '2015-01-01', 'FULL', $2::timestamptz, n
     FROM generate_series($3::int, $4::int) AS n`,
    [title, publishedAt, from, to]
  )

describe("the search table", () => {
  test("matches a fill from scratch, before and after writes to every searchable table", async () => {
    expect(await drift()).toBe(0)
    const [{ n }] = await server.sql<{ n: number }>("SELECT count(*)::int AS n FROM search_postings") as [{ n: number }]
    expect(n).toBeGreaterThan(0)
    await addSongs(5000, 5004, "Pelangi Senja")
    await server.sql("UPDATE songs SET title = 'Cindai Baharu', vidsvc_views = 7 WHERE id = 9")
    await server.sql("UPDATE songs SET deleted_at = now() WHERE id = 5001")
    await server.sql("UPDATE artists SET prefix_title = 'Tan Sri' WHERE id = 2")
    await server.sql("UPDATE labels SET formerly_known_as = 'Kijang Audio' WHERE id = 1")
    await server.sql("UPDATE members SET is_banned = true WHERE username = 'aishah_fan'")
    await server.sql("UPDATE genres SET title = 'Rock Kapak Klasik' WHERE id = 3")
    await server.sql("UPDATE curated_lists SET title = 'Lagu Raya Sepanjang Zaman' WHERE id = 1")
    await server.sql("INSERT INTO album_tracks (album_id, song_id, position) VALUES (1, 5000, 99)")
    await server.sql("INSERT INTO credits (song_id, artist_id, role_id, position) SELECT 5002, 11, id, 9 FROM roles ORDER BY id LIMIT 1")
    await server.sql("UPDATE artists SET name = 'Zainal Abidin Baharudin' WHERE id = 11")
    await server.sql("UPDATE albums SET title = 'Cindai Emas' WHERE id = 1")
    await server.sql("DELETE FROM credits WHERE song_id = 9 AND position = 1")
    await server.sql("UPDATE albums SET published_at = now() + interval '1 day' WHERE id = 4")
    expect(await drift()).toBe(0)
  })

  test("renames, deletions and bans show at once", async () => {
    // Cindai Baharu; then Bukan Cinta Biasa, on the album Cindai Emas, featuring Zainal Abidin Baharudin
    expect((await songs("cindai baharu")).items.map((s) => s.id)).toEqual([9, 3])
    expect((await songs("pelangi senja")).items.map((s) => s.id)).toEqual([5004, 5003, 5002, 5000])
    expect((await search("q=aishah_fan&types=users")).users!.total).toBe(0)
    expect((await search("q=kijang&types=labels")).labels!.items.map((l) => l.id)).toEqual([1])
    expect((await search("q=tan%20sri%20m&types=artists")).artists!.items.map((a) => a.id)).toEqual([2])
    // a song by its new performer, its performer's new name, its album's new title
    expect((await songs("pelangi senja zainal")).items.map((s) => s.id)).toEqual([5002])
    expect((await songs("baharudin ghazal")).items.map((s) => s.id)).toEqual([8])
    expect((await songs("emas bukan")).items.map((s) => s.id)).toEqual([3])
    // Cindai Baharu lost its performer: Siti Nurhaliza no longer finds it
    expect((await songs("baharu siti")).items.map((s) => s.id)).toEqual([])
    // Hati's album is scheduled again: its title no longer finds its song
    expect((await songs("hati", 10)).items.map((s) => s.id)).toContain(5)
    expect((await search("q=hati&types=albums")).albums!.total).toBe(0)
  })

  test("a scheduled song is found once its published_at passes, with no write", async () => {
    await addSongs(6000, 6000, "Fajar Menyingsing", new Date(Date.now() + 1500).toISOString())
    expect((await songs("fajar menyingsing")).total).toBe(0)
    await Bun.sleep(2000)
    expect((await songs("fajar menyingsing")).items.map((s) => s.id)).toEqual([6000])
  })

  test("an artist without a settled song is found by a due song or a public album, not before", async () => {
    const artists = async (text: string) =>
      (await search(`q=${encodeURIComponent(text)}&types=artists`)).artists!.items.map((a) => a.id)
    await server.sql(`
      INSERT INTO artists (id, name, slug) VALUES (7000, 'Qistinawira Zulkarnain', 'qistinawira'),
        (7001, 'Qistinawira Hassan', 'qistinawira-hassan'), (7002, 'Qistinawira Rahman', 'qistinawira-rahman');
      INSERT INTO albums (id, title, slug, album_type, published_at) VALUES (7001, 'Zyxalbum', 'zyxalbum', 'album', now()),
        (7002, 'Zyxhidden', 'zyxhidden', 'album', NULL);
      INSERT INTO album_artists (album_id, position, artist_id) VALUES (7001, 1, 7001), (7002, 1, 7002)`)
    await addSongs(7000, 7000, "Lagu Qistinawira", new Date(Date.now() + 1500).toISOString())
    await server.sql("INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (7000, 1, 7000, 1)")
    // by name and with a typo: the album's artist only; the scheduled song's and the hidden album's not yet
    expect(await artists("qistinawira")).toEqual([7001])
    expect(await artists("qistinawra")).toEqual([7001])
    await Bun.sleep(2000)
    expect((await artists("qistinawira")).sort()).toEqual([7000, 7001])
    expect((await artists("qistinawra")).sort()).toEqual([7000, 7001])
  })

  test(`total is exact below ${SEARCH_TOTAL_BOUND}; ${SEARCH_TOTAL_BOUND} means that many or more`, async () => {
    await addSongs(10_000, 10_000 + SEARCH_TOTAL_BOUND + 99, "Zzgema")
    const many = await songs("zzgema", 3)
    expect(many.total).toBe(SEARCH_TOTAL_BOUND)
    // the page is still the best of every match: most viewed first
    expect(many.items.map((s) => s.id)).toEqual([11_099, 11_098, 11_097])
    // typed: the same rows by the prefix
    expect((await songs("zzgem", 3)).items.map((s) => s.id)).toEqual([11_099, 11_098, 11_097])
    await server.sql("UPDATE songs SET deleted_at = now() WHERE id BETWEEN 10000 AND 10199")
    expect((await songs("zzgema")).total).toBe(SEARCH_TOTAL_BOUND - 100)
    expect((await songs("zzgem")).total).toBe(SEARCH_TOTAL_BOUND - 100)
    expect(await drift()).toBe(0)
  }, 60_000)

  test("more rows holding every word than are ranked one by one: the page is still the best of them", async () => {
    // 2,100 titles hold both words; the two most viewed are hidden (one scheduled); a tie on views
    // across the page's last place is decided by id
    await addSongs(40_000, 40_000 + 2 * SEARCH_TOTAL_BOUND + 99, "Rosa Zqsayang")
    await server.sql("UPDATE songs SET published_at = now() + interval '1 day' WHERE id = 42099")
    await server.sql("UPDATE songs SET deleted_at = now() WHERE id = 42098")
    await server.sql("UPDATE songs SET vidsvc_views = 42094 WHERE id = 42090")
    const page = await songs("zqsayang rosa", 4)
    expect(page.total).toBe(SEARCH_TOTAL_BOUND)
    expect(page.items.map((s) => s.id)).toEqual([42_097, 42_096, 42_095, 42_090])
    // a title of those words and no other comes first
    await addSongs(43_000, 43_000, "Zqsayang")
    await server.sql("UPDATE songs SET title = 'Rosa Zqsayang', vidsvc_views = 42096 WHERE id = 43000")
    expect((await songs("zqsayang rosa", 2)).items.map((s) => s.id)).toEqual([43_000, 42_097])
  }, 60_000)

  test("a common word's page: the whole title first, then the title, then other names, each by popularity", async () => {
    await addSongs(20_000, 20_000 + SEARCH_TOTAL_BOUND + 99, "Dan Zzrindu")
    await server.sql("INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views) VALUES " +
      "(30000, 'Zzrindu', 'zzrindu', '2015-01-01', 'FULL', '2020-01-01', 1), " +
      "(30001, 'Lagu Malam', 'lagu-malam', '2015-01-01', 'FULL', '2020-01-01', 99999999)")
    await server.sql("INSERT INTO artists (id, name, slug) VALUES (30001, 'Zzrindu Band', 'zzrindu-band')")
    await server.sql("INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (30001, 1, 30001, 1)")
    const page = await songs("zzrindu", 4)
    expect(page.total).toBe(SEARCH_TOTAL_BOUND)
    expect(page.items.map((s) => s.id)).toEqual([30000, 21_099, 21_098, 21_097])
    expect(page.items[0]!.score).toBe(1)
    // the performer's name ranks after every title
    expect((await songs("zzrindu band", 1)).items.map((s) => s.id)).toEqual([30001])
  }, 60_000)
})
