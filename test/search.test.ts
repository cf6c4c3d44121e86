import { beforeAll, describe, expect, test } from "bun:test"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { SearchResults } from "../src/Search/Api.js"
import { decodeWith, request } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const Response = DetailEnvelope(SearchResults, "SearchResponse")

const search = async (query: string) => {
  const reply = await request(server.baseUrl, `/v1/search?${query}`)
  expect(reply.status).toBe(200)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  return { reply, results: decodeWith(Response, reply.body).data }
}

const q = (text: string, extra = "") => `q=${encodeURIComponent(text)}${extra}`

const artistIds = async (text: string) => (await search(q(text, "&types=artists"))).results.artists!.items.map((a) => a.id)
const songIds = async (text: string) => (await search(q(text, "&types=songs"))).results.songs!.items.map((s) => s.id)

describe("search across categories", () => {
  test("answers every type when none is asked, each with items and total", async () => {
    const { reply, results } = await search(q("cindai"))
    expect(Object.keys(reply.body.data)).toEqual([
      "songs", "artists", "albums", "curated_lists", "labels", "genres", "users"
    ])
    // the title, a longer title, then the song on the album of that title
    expect(results.songs!.items.map((s) => s.id)).toEqual([1, 9, 3])
    expect(results.songs!.total).toBe(3)
    expect(results.songs!.items[0]).toMatchObject({ id: 1, title: "Cindai", score: 1, artists: [{ id: 1, name: "Siti Nurhaliza" }] })
    expect(results.songs!.items[1]!.score).toBeLessThan(1)
    expect(results.songs!.items[2]!.score).toBeLessThan(results.songs!.items[1]!.score)
    expect(results.albums!.items.map((a) => a.id)).toEqual([1])
    expect(results.albums!.items[0]!.score).toBe(1)
    expect(results.artists).toEqual({ items: [], total: 0 })
    // the score comes last, after the shape the other endpoints show
    expect(Object.keys(reply.body.data.songs.items[0]).at(-1)).toBe("score")
  })

  test("types limits the sections; limit caps the items but not the total", async () => {
    const { reply, results } = await search(q("lagu", "&types=songs,genres,songs&limit=3"))
    expect(Object.keys(reply.body.data)).toEqual(["songs", "genres"])
    expect(results.songs!.items.length).toBe(3)
    expect(results.songs!.total).toBe(60)
    // popularity (vidsvc views) orders equal matches
    expect(results.songs!.items.map((s) => s.id)).toEqual([159, 158, 157])
    const all = await search(q("lagu", "&types=songs&limit=20"))
    expect(all.results.songs!.items.length).toBe(20)
  })

  test("each type's section is the same asked alone or with the others", async () => {
    const types = ["songs", "artists", "albums", "curated_lists", "labels", "genres", "users"] as const
    // one letter, two, word starts, inside a word, a typo (fuzzy), honorifics, and no match at all
    for (const text of ["s", "ku", "lagu", "cinta", "aliza", "nurhalisa", "dato sri", "zzqx"]) {
      const together = (await search(q(text, "&limit=3"))).reply.body.data
      const reversed = (await search(q(text, `&limit=3&types=${[...types].reverse().join(",")}`))).reply.body.data
      for (const type of types) {
        const alone = (await search(q(text, `&limit=3&types=${type}`))).reply.body.data
        expect({ text, type, section: together[type] }).toEqual({ text, type, section: alone[type] })
        expect({ text, type, section: reversed[type] }).toEqual({ text, type, section: alone[type] })
      }
    }
  })

  test("finds a song by its words in any order across title, performers and album", async () => {
    expect(await songIds("cinta bukan")).toEqual([3])
    expect(await songIds("biasa cinta bukan")).toEqual([3])
    // title with its artist, artist with its title, honorific or not
    expect(await songIds("Bukan Cinta Biasa Siti Nurhaliza")).toEqual([3])
    expect(await songIds("siti nurhaliza bukan cinta biasa")).toEqual([3])
    expect(await songIds("dato sri siti nurhaliza cinta")).toEqual([3])
    // a featured performer counts; a composer does not (M. Nasir wrote Cindai)
    expect(await songIds("zainal cinta")).toEqual([3])
    expect(await songIds("nasir cindai")).toEqual([])
    // the album's title: Bukan Cinta Biasa is on the album Cindai
    expect(await songIds("cindai bukan")).toEqual([3])
  })

  test("ranks all words before some, exact before typos, title before performers before album, then popularity", async () => {
    // title (the whole title first), then the album's title
    expect(await songIds("Cindai")).toEqual([1, 9, 3])
    // Siti Nurhaliza sings all three: Cindai in the title before Cindai the album
    expect(await songIds("siti cindai")).toEqual([1, 9, 3])
    // exact before a typo: Hati, then Hari Ini Dalam Sejarah (hari is one edit from hati)
    const hati = (await search(q("hati", "&types=songs"))).results.songs!.items
    expect(hati.map((s) => s.id)).toEqual([5, 13])
    expect(hati[0]!.score).toBe(1)
    expect(hati[1]!.score).toBeLessThan(1)
    // with three words or more, rows missing one come when no row holds them all
    const missing = (await search(q("bukan cinta zzqx", "&types=songs"))).results.songs!
    expect(missing.items.map((s) => s.id)).toEqual([3])
    expect(missing.items[0]!.score).toBeLessThan(0.75)
    expect(await songIds("cinta zzqx")).toEqual([])
  })

  test("ignores case and diacritics", async () => {
    expect(await artistIds("zainal abidin")).toEqual([11])
    expect(await artistIds("ZAINAL ABIDÍN")).toEqual([11])
    // both namesakes match exactly; AISHAH has more credits, so it comes first
    expect(await artistIds("aishah")).toEqual([7, 6])
  })

  test("the last word is a prefix: typing finds the names", async () => {
    const ci = (await search(q("Ci", "&types=songs"))).results.songs!
    // the titles beginning with "ci" (Cindai, Cindai (Live)) before the more popular Bukan Cinta Biasa
    expect(ci.items.map((s) => s.id)).toEqual([1, 9, 3])
    // a word typed in part scores below the whole word: 1 is for the whole title typed
    expect(ci.items[0]!.score).toBeLessThan(1)
    expect((await search(q("Cindai", "&types=songs"))).results.songs!.items[0]).toMatchObject({ id: 1, score: 1 })
    expect(ci.total).toBe(3)
    expect(await songIds("bukan ci")).toEqual([3])
    expect(await songIds("siti nurhaliza bukan cin")).toEqual([3])
    // only the last word: "ci bukan" asks for a word "ci"
    expect(await songIds("ci bukan")).toEqual([])
    // through the honorific: "Dato' M. Nasir" and "Dato' Sri Siti Nurhaliza"; M. Nasir has more credits
    expect(await artistIds("da")).toEqual([2, 1])
    // the hidden artist's name starts with "ca" too
    expect((await search(q("ca", "&types=artists"))).results.artists).toEqual({ items: [], total: 0 })
    expect((await search(q("H", "&types=albums"))).results.albums!.items.map((a) => a.id)).toEqual([4])
  })

  test("honorifics need not be typed, and typing them still matches; apostrophes and hyphens are optional", async () => {
    const siti = (await search(q("dato sri siti", "&types=artists"))).results.artists!.items
    expect(siti).toEqual([expect.objectContaining({ id: 1, prefix_title: "Dato' Sri" })])
    expect(await artistIds("Dato' Sri Siti Nurhaliza")).toEqual([1])
    expect(await artistIds("siti")).toEqual([1])
    expect(await artistIds("siti-nurhaliza")).toEqual([1])
    expect(await artistIds("dr zainal")).toEqual([11])
    expect(await artistIds("m nasir")).toEqual([2])
  })

  test("finds Chinese and Tamil names", async () => {
    expect(await artistIds("李伟明")).toEqual([8])
    expect(await artistIds("ரவிச்சந்திரன்")).toEqual([9])
    expect(await songIds("月亮")).toEqual([6])
    expect(await songIds("காதல்")).toEqual([7])
  })

  test("each word may carry a typo: one edit in 4-7 letters, two in 8+, a swap counting once", async () => {
    expect(await artistIds("nurhalisa")).toEqual([1])
    expect(await artistIds("siti nurhalisa")).toEqual([1])
    expect(await artistIds("sitti nurhalisa")).toEqual([1])
    // two edits in a word of 8+ letters, not three
    expect(await artistIds("nurhalisaa")).toEqual([1])
    expect(await artistIds("nurhalisaaa")).toEqual([])
    // a swap of neighbours is one edit
    expect(await songIds("cnidai")).toEqual([1, 9, 3])
    expect(await songIds("ghazal untk rabiah")).toEqual([8])
    expect(await songIds("bukn cinta")).toEqual([3])
    // 4 letters allow one edit, 3 letters none; two edits in 4-7 letters are too many
    // "nasr" is one edit from Nasir and from Nash
    expect(await artistIds("nasr")).toEqual([5, 2])
    // "bun" is two edits from "bukan" ("bkn" finds it as a short form: test/search-scripts.test.ts)
    expect(await songIds("bun cinta")).toEqual([])
    expect(await songIds("bkan cnta")).toEqual([3])
    expect(await songIds("bukann cinta")).toEqual([3])
    expect(await songIds("bxkxn cinta")).toEqual([])
  })

  test("hidden rows are never found", async () => {
    const { reply, results } = await search(q("canary", "&limit=20"))
    for (const section of Object.values(results)) expect(section).toEqual({ items: [], total: 0 })
    expect(reply.text).not.toContain("CANARY")
    // the banned member and the member without a handle
    expect((await search(q("banned bob", "&types=users"))).results.users!.total).toBe(0)
    expect((await search(q("no handle", "&types=users"))).results.users!.total).toBe(0)
    // the hidden artist's songs and album, by their other words
    expect((await search(q("unpublished song"))).reply.text).not.toContain("CANARY")
    expect((await search(q("hidden album"))).results.albums!.total).toBe(0)
    // Cindai is also on the hidden album: its title does not find the song
    expect(await songIds("cindai canary")).toEqual([])
  })

  test("a scheduled album's title finds its public songs only once the album is public", async () => {
    await server.sql(`INSERT INTO albums (id, title, slug, album_type, released_at, published_at)
                      VALUES (900, 'Zephyrine Sessions', 'zephyrine-sessions', 'album', '2020-01-01', now() + interval '1 day')`)
    await server.sql("INSERT INTO album_tracks (album_id, position, song_id) VALUES (900, 1, 2)")
    try {
      expect(await songIds("zephyrine")).toEqual([])
      expect(await songIds("isabella zephyrine")).toEqual([])
      expect(await songIds("isabella")).toEqual([2])
      expect((await search(q("zephyrine", "&types=albums"))).results.albums!.total).toBe(0)
      await server.sql("UPDATE albums SET published_at = now() - interval '1 second' WHERE id = 900")
      expect(await songIds("zephyrine")).toEqual([2])
      expect(await songIds("isabella zephyrine")).toEqual([2])
    } finally {
      await server.sql("DELETE FROM album_tracks WHERE album_id = 900")
      await server.sql("DELETE FROM albums WHERE id = 900")
    }
  })

  test("finds users by name or handle, labels by former name, genres, lists", async () => {
    const users = (await search(q("aishah_fan", "&types=users"))).results.users!.items
    expect(users[0]).toMatchObject({ username: "aishah_fan", name: "Aishah Rahman", contribution_count: 63 })
    expect((await search(q("aishah rahman", "&types=users"))).results.users!.items[0]).toMatchObject({ username: "aishah_fan", score: 1 })
    expect(Object.keys(users[0]!)).not.toContain("email")
    const labels = (await search(q("rusa music", "&types=labels"))).results.labels!.items
    expect(labels).toEqual([
      { id: 1, name: "Rusa Records", formerly_known_as: "Rusa Music", slug: "rusa-records", song_count: 3, album_count: 1, score: labels[0]!.score }
    ])
    const genres = (await search(q("rock", "&types=genres"))).results.genres!.items
    expect(genres).toEqual([
      {
        id: 3, slug: "rock-kapak", title: "Rock Kapak", color: "#3f51b5",
        image_url: "https://cdn.test.example/genres/rock-kapak.jpg", song_count: 1, score: genres[0]!.score
      }
    ])
    const lists = (await search(q("lagu raya", "&types=curated_lists"))).results.curated_lists!.items
    expect(lists).toEqual([expect.objectContaining({ id: 1, title: "Lagu Raya Terbaik", item_count: 2 })])
    expect(labels[0]!.score).toBeLessThan(1)
    expect(genres[0]!.score).toBeLessThan(1)
  })

  test("SQL and LIKE wildcards in q are just text", async () => {
    for (const text of ["'; DROP TABLE songs; --", "%", "_", "\\", "%%%", "' OR 1=1 --"]) {
      const { results } = await search(q(text))
      expect(results.songs!.total).toBe(0)
    }
    // as wildcards these would match "Lagu ..." and "Cindai"
    expect(await songIds("la%u")).toEqual([])
    expect(await songIds("c_ndai")).toEqual([])
    expect((await search(q("lagu 100%", "&types=songs"))).results.songs!.items[0]).toMatchObject({ id: 100, score: 1 })
    expect((await search(q("cindai"))).results.songs!.total).toBe(3)
  })

  test("empty, blank or over-long q and bad types or limit are bad_request", async () => {
    for (const query of ["", "q=", "q=%20%20%20", `q=${"x".repeat(101)}`, "q=a&types=songs,bogus", "q=a&types=",
      "q=a&limit=0", "q=a&limit=21", "q=a&limit=1e1", "q=a&q=b"]) {
      const reply = await request(server.baseUrl, `/v1/search?${query}`)
      expect(reply.status).toBe(400)
      expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("bad_request")
    }
    expect((await request(server.baseUrl, `/v1/search?q=${"x".repeat(100)}`)).status).toBe(200)
    expect((await request(server.baseUrl, `/v1/search?q=%20cindai%20`)).body.data.songs.total).toBe(3)
  })
})
