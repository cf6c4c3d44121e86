import { beforeAll, describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { ArtistDetail, ArtistSummary, NamesakeHint } from "../src/Contract/Artist.js"
import { DetailEnvelope, ListEnvelope } from "../src/Contract/Envelope.js"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { ListAlbumEntry, SongSummary } from "../src/Contract/Song.js"
import { decodeWith, request, type Reply } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const get = (path: string) => request(server.baseUrl, path)
const ArtistList = ListEnvelope(ArtistSummary, "ArtistList")
const SongList = ListEnvelope(SongSummary, "SongList")
const AlbumList = ListEnvelope(ListAlbumEntry, "AlbumList")
const HintList = ListEnvelope(NamesakeHint, "HintList")
const Detail = DetailEnvelope(ArtistDetail, "ArtistDetail")

const expectError = (reply: Reply, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe(code as never)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
}

interface Page {
  readonly data: ReadonlyArray<{ readonly id: number }>
  readonly meta: { readonly next_cursor: string }
}

const walk = async <A extends Page, I>(path: string, schema: Schema.Codec<A, I>) => {
  const ids: Array<number> = []
  let cursor = ""
  for (let pageNumber = 0; pageNumber < 50; pageNumber++) {
    const separator = path.includes("?") ? "&" : "?"
    const reply = await get(`${path}${separator}limit=3${cursor ? `&cursor=${cursor}` : ""}`)
    expect(reply.status).toBe(200)
    const body = decodeWith(schema, reply.body)
    ids.push(...body.data.map((row) => row.id))
    if (body.meta.next_cursor === "") return ids
    cursor = body.meta.next_cursor
  }
  throw new Error("the cursor walk did not end")
}

describe("the artist list", () => {
  test("lists visible artists A-Z with public song counts; the hidden artist never appears", async () => {
    const reply = await get("/v1/artists?limit=80")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
    const body = decodeWith(ArtistList, reply.body)
    const ids = body.data.map((artist) => artist.id)
    expect(ids).not.toContain(10)
    expect(reply.text).not.toContain("CANARY")
    expect(ids).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 6, 7, 8, 9, 11]))
    const names = body.data.map((artist) => artist.name.toLowerCase())
    expect(names).toEqual([...names].sort())
    expect(body.meta).toEqual({ total: body.data.length, limit: 80, offset: 0, next_cursor: "" })
    const siti = body.data.find((artist) => artist.id === 1)!
    // Cindai, Bukan Cinta Biasa, Cindai (Live): the unpublished, deleted and future songs do not count
    expect(siti).toEqual({
      id: 1,
      name: "Siti Nurhaliza",
      slug: "siti-nurhaliza",
      prefix_title: "Dato' Sri",
      is_group: false,
      avatar_url: "https://cdn.test.example/avatars/artists/1.jpg",
      song_count: 3
    })
    expect(body.data.find((artist) => artist.id === 2)!.avatar_url).toBe("https://cdn.test.example/placeholders/avatar.png")
  })

  test("sort=songs puts the artist with most public songs first and pages by cursor without repeats", async () => {
    const reply = await get("/v1/artists?sort=songs&limit=2")
    const body = decodeWith(ArtistList, reply.body)
    expect(body.data[0]).toMatchObject({ id: 4, name: "Amy" })
    expect(body.data[0]!.song_count).toBeGreaterThanOrEqual(61)
    expect(body.meta.next_cursor).not.toBe("")
    const walked = await walk("/v1/artists?sort=songs", ArtistList)
    const all = decodeWith(ArtistList, (await get("/v1/artists?sort=songs&limit=80")).body).data.map((a) => a.id)
    expect(walked).toEqual(all)
    expect(new Set(walked).size).toBe(walked.length)
  })

  test("walking A-Z by cursor returns every artist once, in order, like offset pages", async () => {
    const walked = await walk("/v1/artists", ArtistList)
    const all = decodeWith(ArtistList, (await get("/v1/artists?limit=80")).body).data.map((a) => a.id)
    expect(walked).toEqual(all)
    const second = decodeWith(ArtistList, (await get("/v1/artists?limit=3&offset=3")).body)
    expect(second.data.map((a) => a.id)).toEqual(all.slice(3, 6))
    expect(second.meta.offset).toBe(3)
  })

  test("q matches names ignoring case, diacritics and honorifics", async () => {
    const ids = async (q: string) =>
      decodeWith(ArtistList, (await get(`/v1/artists?q=${encodeURIComponent(q)}`)).body).data.map((a) => a.id)
    expect(await ids("zainal abidin")).toEqual([11])
    expect(await ids("ABIDÍN")).toEqual([11])
    expect(await ids("dato sri siti")).toEqual([1])
    expect(await ids("nurhaliza")).toEqual([1])
    expect(await ids("李伟明")).toEqual([8])
    expect(await ids("ரவிச்சந்திரன்")).toEqual([9])
    expect(await ids("aishah")).toEqual([6, 7])
    expect(await ids("canary")).toEqual([])
    expect(await ids("%")).toEqual([])
    // one or two letters (shorter than a trigram: src/Queries/NameFilter.ts) still match anywhere
    expect(await ids("ID")).toContain(11)
    expect(await ids("í")).toContain(11)
    expect(await ids("sr")).toContain(1)
    expect(await ids("_")).toEqual([])
    expect(await ids("A")).toEqual(await ids("á"))
    expect((await ids("a")).length).toBeGreaterThan(4)
  })

  test("bad parameters are bad_request naming the parameter", async () => {
    for (const query of ["sort=bogus", "limit=0", "limit=81", "offset=-1", "q=", "q=%20%20", `q=${"x".repeat(101)}`]) {
      const reply = await get(`/v1/artists?${query}`)
      expectError(reply, 400, "bad_request")
      expect(reply.body.error.message).toContain(query.split("=")[0]!)
    }
    expectError(await get("/v1/artists?cursor=bm90LWEtY3Vyc29y"), 400, "bad_request")
    // a cursor of another sort is refused
    const bySongs = decodeWith(ArtistList, (await get("/v1/artists?sort=songs&limit=1")).body).meta.next_cursor
    expectError(await get(`/v1/artists?sort=name&cursor=${bySongs}`), 400, "bad_request")
    // a forged cursor of the right scope with a key of the wrong type
    const forged = Buffer.from(JSON.stringify({ s: "artists:name:", o: 3, k: [1, "x"] })).toString("base64url")
    expectError(await get(`/v1/artists?cursor=${forged}`), 400, "bad_request")
  })
})

describe("the artist detail", () => {
  test("shows roles, members, the public profile's username and counts", async () => {
    const reply = await get("/v1/artists/1")
    expect(reply.status).toBe(200)
    const artist = decodeWith(Detail, reply.body).data
    expect(artist).toEqual({
      id: 1,
      name: "Siti Nurhaliza",
      slug: "siti-nurhaliza",
      prefix_title: "Dato' Sri",
      is_group: false,
      avatar_url: "https://cdn.test.example/avatars/artists/1.jpg",
      disambiguator: null,
      username: "sitinurhaliza",
      song_count: 3,
      album_count: 1,
      roles: [{ slug: "vocals", title: "Vocals", count: 3 }],
      members: [],
      member_of: []
    })
    expect(Object.keys(reply.body.data)).toEqual([
      "id", "name", "slug", "prefix_title", "is_group", "avatar_url", "disambiguator", "username",
      "song_count", "album_count", "roles", "members", "member_of"
    ])
  })

  test("a group lists its members and a member its groups", async () => {
    const group = decodeWith(Detail, (await get("/v1/artists/3")).body).data
    expect(group.is_group).toBe(true)
    expect(group.username).toBe("search_band")
    expect(group.members.map((m) => m.id)).toEqual([4, 5])
    expect(group.members[0]).toEqual({
      id: 4,
      name: "Amy",
      prefix_title: null,
      is_group: false,
      avatar_url: "https://cdn.test.example/placeholders/avatar.png"
    })
    expect(group.album_count).toBe(1)
    const amy = decodeWith(Detail, (await get("/v1/artists/4")).body).data
    expect(amy.member_of.map((g) => g.id)).toEqual([3])
    expect(amy.username).toBeNull()
    expect(amy.roles).toEqual([
      { slug: "vocals", title: "Vocals", count: 61 },
      { slug: "composer", title: "Composer", count: 1 }
    ])
  })

  test("an artist credited only on hidden songs is not_found, like an id that never existed", async () => {
    const hidden = await get("/v1/artists/10")
    expectError(hidden, 404, "not_found")
    expect(hidden.text).not.toContain("CANARY")
    expectError(await get("/v1/artists/999999"), 404, "not_found")
    expectError(await get("/v1/artists/10/songs"), 404, "not_found")
    expectError(await get("/v1/artists/10/albums"), 404, "not_found")
  })

  test("malformed ids are bad_request", async () => {
    for (const id of ["abc", "0", "-3", "1e3", "0x10", "4242.0", "99999999999"]) {
      expectError(await get(`/v1/artists/${id}`), 400, "bad_request")
    }
  })
})

describe("an artist's songs and albums", () => {
  test("songs are public ones, newest first, by role", async () => {
    const any = decodeWith(SongList, (await get("/v1/artists/2/songs")).body)
    // M. Nasir writes Cindai, Bukan Cinta Biasa, Janji Manismu, Ghazal Untuk Rabiah, Cindai (Live)
    expect(any.data.map((s) => s.id)).toEqual([8, 3, 9, 1, 4])
    expect(any.meta.total).toBe(5)
    const performer = decodeWith(SongList, (await get("/v1/artists/2/songs?role=performer")).body)
    expect(performer.data).toEqual([])
    expect(performer.meta.total).toBe(0)
    const writer = decodeWith(SongList, (await get("/v1/artists/2/songs?role=writer")).body)
    expect(writer.meta.total).toBe(5)
    const siti = decodeWith(SongList, (await get("/v1/artists/1/songs?role=performer")).body)
    expect(siti.data.map((s) => s.id)).toEqual([3, 9, 1])
    expect(siti.data[2]).toMatchObject({ id: 1, title: "Cindai", artists: [{ id: 1, name: "Siti Nurhaliza" }] })
    expectError(await get("/v1/artists/1/songs?role=drummer"), 400, "bad_request")
  })

  test("walking an artist's songs by cursor returns every song once, newest first", async () => {
    const walked = await walk("/v1/artists/4/songs", SongList)
    // 60 filler songs, Hari Ini Dalam Sejarah (vocals) and Isabella (composer)
    expect(walked.length).toBe(62)
    expect(new Set(walked).size).toBe(62)
    const all = decodeWith(SongList, (await get("/v1/artists/4/songs?limit=80")).body)
    expect(walked).toEqual(all.data.map((s) => s.id))
    const dates = all.data.map((s) => s.released_at)
    expect(dates).toEqual([...dates].sort().reverse())
  })

  test("albums name the artist or are resolved from the artist's performances", async () => {
    const siti = decodeWith(AlbumList, (await get("/v1/artists/1/albums")).body)
    expect(siti.data.map((a) => a.id)).toEqual([1])
    expect(siti.meta).toEqual({ total: 1, limit: 20, offset: 0, next_cursor: "" })
    // Search EP has no named artist: its artists are the performers of its songs
    const search = decodeWith(AlbumList, (await get("/v1/artists/3/albums")).body)
    expect(search.data.map((a) => a.id)).toEqual([2])
    expect(search.data[0]!.artists.map((a) => a.id)).toEqual([3])
    // AISHAH performs Hati, the single
    expect(decodeWith(AlbumList, (await get("/v1/artists/7/albums")).body).data.map((a) => a.id)).toEqual([4])
    // M. Nasir only writes: no albums
    expect(decodeWith(AlbumList, (await get("/v1/artists/2/albums")).body).data).toEqual([])
  })
})

describe("namesake hints", () => {
  test("the static path wins over /v1/artists/{artistId}", async () => {
    const reply = await get("/v1/artists/namesake-hints?ids=6")
    expect(reply.status).toBe(200)
    expect(decodeWith(HintList, reply.body).data.map((h) => h.id)).toEqual([6])
  })

  test("rows only for asked ids that collide, in the order asked, editor disambiguator first", async () => {
    const reply = await get("/v1/artists/namesake-hints?ids=7,1,6,10,999")
    expect(reply.status).toBe(200)
    const body = decodeWith(HintList, reply.body)
    expect(body.data).toEqual([
      { id: 7, disambiguator: "Vocals, Hati (1999)", role: "Vocals", song: "Hati", song_year: 1999 },
      {
        id: 6,
        disambiguator: "Pop singer from Batu Pahat",
        role: "Vocals",
        song: "Janji Manismu",
        song_year: 1994
      }
    ])
    expect(body.meta).toEqual({ total: 2, limit: 5, offset: 0, next_cursor: "" })
    const none = decodeWith(HintList, (await get("/v1/artists/namesake-hints?ids=1,2")).body)
    expect(none).toEqual({ data: [], meta: { total: 0, limit: 2, offset: 0, next_cursor: "" } })
  })

  test("a bad id list is bad_request", async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(",")
    for (const ids of ["", "abc", "1,,2", "1,0", "1,-2", "1, 2", "1e3", "1,99999999999", tooMany]) {
      const reply = await get(`/v1/artists/namesake-hints?ids=${ids}`)
      expectError(reply, 400, "bad_request")
      expect(reply.body.error.message).toContain("ids")
    }
    expectError(await get("/v1/artists/namesake-hints"), 400, "bad_request")
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1).join(",")
    expect((await get(`/v1/artists/namesake-hints?ids=${hundred}`)).status).toBe(200)
  })
})
