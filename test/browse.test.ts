import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { CuratedListSummary } from "../src/Domain/CuratedList.js"
import { ListEnvelope } from "../src/Domain/Envelope.js"
import { ErrorEnvelope } from "../src/Domain/Errors.js"
import { ListAlbumEntry, SongSummary } from "../src/Domain/Song.js"
import { resolveTestDatabase } from "./support/database.js"
import { decodeWith, request } from "./support/http.js"
import { sharedServer, startServer, type TestServer } from "./support/server.js"
import { PUBLIC_LIST_SUMMARIES } from "./support/fixture.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const SongList = ListEnvelope(SongSummary, "SongList")
const AlbumList = ListEnvelope(ListAlbumEntry, "AlbumList")
const CuratedListList = ListEnvelope(CuratedListSummary, "CuratedListList")
const CANARY_SONGS = [10, 11, 12]

const get = (path: string, base = server.baseUrl) => request(base, path)

const withQuery = (path: string, extra: string) => path + (path.includes("?") ? "&" : "?") + extra

/** Every row of a list, walked by cursor; checks each page's meta on the way. */
const walkByCursor = async (path: string, base = server.baseUrl) => {
  const rows: Array<{ id: number }> = []
  let reply = await get(path, base)
  let expectedOffset = 0
  for (;;) {
    expect(reply.status).toBe(200)
    expect(reply.body.meta.offset).toBe(expectedOffset)
    rows.push(...reply.body.data)
    expectedOffset += reply.body.data.length
    const next: string = reply.body.meta.next_cursor
    if (next === "") break
    reply = await get(withQuery(path, `cursor=${next}`), base)
  }
  expect(rows.length).toBe(reply.body.meta.total)
  return rows
}

/** Every row of a list, walked by offset. */
const walkByOffset = async (path: string, limit: number) => {
  const rows: Array<{ id: number }> = []
  for (let offset = 0; ; offset += limit) {
    const reply = await get(withQuery(path, `offset=${offset}`))
    expect(reply.status).toBe(200)
    rows.push(...reply.body.data)
    if (offset + limit >= reply.body.meta.total) break
  }
  return rows
}

const publicSongCount = async (where = "TRUE") => {
  const [row] = await server.sql<{ n: number }>(`SELECT count(*)::int AS n FROM public_songs s WHERE ${where}`)
  return row?.n ?? -1
}

describe("GET /v1/songs", () => {
  test("lists public song summaries newest first, with meta counting public songs only", async () => {
    const reply = await get("/v1/songs?limit=80")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
    const list = decodeWith(SongList, reply.body)
    expect(list.meta.total).toBe(await publicSongCount())
    expect(list.meta).toMatchObject({ limit: 80, offset: 0 })
    const dates = list.data.map((s) => s.released_at)
    expect(dates).toEqual([...dates].sort().reverse())
    expect(list.data.map((s) => s.id)).not.toContain(10)
    expect(reply.text).not.toContain("CANARY")
  })

  test("filters by genre, label and year", async () => {
    const rock = decodeWith(SongList, (await get("/v1/songs?genre=rock-kapak")).body)
    expect(rock.data.map((s) => s.id)).toEqual([2])
    const rusa = decodeWith(SongList, (await get("/v1/songs?label=1")).body)
    // songs 10 and 11 are on the label too, but hidden
    expect(rusa.data.map((s) => s.id).sort((a, b) => a - b)).toEqual([1, 3, 9])
    expect(rusa.meta.total).toBe(3)
    const year = decodeWith(SongList, (await get("/v1/songs?year=2012&limit=80")).body)
    expect(year.data.every((s) => s.released_at.startsWith("2012-"))).toBe(true)
    expect(year.meta.total).toBe(await publicSongCount("extract(year FROM s.released_at) = 2012"))
    const combined = decodeWith(SongList, (await get("/v1/songs?genre=pop&label=1&year=1997")).body)
    expect(combined.data.map((s) => s.id)).toEqual([1])
    const none = await get("/v1/songs?genre=no-such-genre")
    expect(none.body).toEqual({ data: [], meta: { total: 0, limit: 20, offset: 0, next_cursor: "" } })
  })

  test("sorts by title A-Z and by popularity most first; order flips either", async () => {
    const byTitle = decodeWith(SongList, (await get("/v1/songs?sort=title&limit=80")).body).data
    const titles = byTitle.map((s) => s.title.toLowerCase())
    expect(titles[0]).toBe("bukan cinta biasa")
    const popular = decodeWith(SongList, (await get("/v1/songs?sort=popular&limit=3")).body).data
    expect(popular.map((s) => s.id)).toEqual([1, 2, 4])
    const leastPopular = decodeWith(SongList, (await get("/v1/songs?sort=popular&order=asc&limit=80")).body).data
    expect(leastPopular[0]?.vidsvc_views).toBeNull()
    expect(leastPopular.at(-1)?.id).toBe(1)
    const oldest = decodeWith(SongList, (await get("/v1/songs?order=asc&limit=1")).body).data
    expect(oldest.map((s) => s.id)).toEqual([2])
  })

  test("walking by cursor returns the same rows as walking by offset, for every sort and order", async () => {
    for (const path of [
      "/v1/songs?limit=7",
      "/v1/songs?limit=9&sort=popular",
      "/v1/songs?limit=11&sort=popular&order=asc",
      "/v1/songs?limit=8&sort=title",
      "/v1/songs?limit=5&sort=title&order=desc&genre=pop",
      "/v1/songs?limit=6&genre=dangdut&order=asc"
    ]) {
      const limit = Number(/limit=(\d+)/.exec(path)?.[1])
      const byCursor = (await walkByCursor(path)).map((s) => s.id)
      const byOffset = (await walkByOffset(path, limit)).map((s) => s.id)
      expect(byCursor).toEqual(byOffset)
      expect(new Set(byCursor).size).toBe(byCursor.length)
      for (const canary of CANARY_SONGS) expect(byCursor).not.toContain(canary)
    }
  })

  test("a bad value of a known parameter is bad_request naming it", async () => {
    for (const [query, name] of [
      ["limit=0", "limit"], ["limit=81", "limit"], ["limit=1e1", "limit"], ["offset=-1", "offset"],
      ["sort=bogus", "sort"], ["order=up", "order"], ["year=97", "year"], ["year=1997.0", "year"],
      ["genre=Not%20A%20Slug", "genre"], ["label=abc", "label"], ["label=0", "label"], ["limit=5&limit=6", "limit"]
    ] as const) {
      const reply = await get(`/v1/songs?${query}`)
      expect(reply.status).toBe(400)
      expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("bad_request")
      expect(reply.body.error.message).toContain(name)
    }
  })

  test("a cursor made for another sort, another filter or forged is bad_request", async () => {
    const released = (await get("/v1/songs?limit=2")).body.meta.next_cursor as string
    for (const path of [`/v1/songs?sort=title&cursor=${released}`, `/v1/songs?genre=pop&cursor=${released}`,
      `/v1/albums?cursor=${released}`, "/v1/songs?cursor=not-a-cursor"]) {
      const reply = await get(path)
      expect(reply.status).toBe(400)
      expect(reply.body.error.message).toContain("cursor")
    }
    const forged = Buffer.from(JSON.stringify({ s: "songs|released|desc|g=|l=|y=", o: 2, k: ["yesterday'; --", 1] }))
      .toString("base64url")
    const reply = await get(`/v1/songs?cursor=${forged}`)
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe("bad_request")
  })
})

describe("GET /v1/albums", () => {
  test("lists public albums as list album entries, newest first, filtered by type", async () => {
    const reply = await get("/v1/albums")
    expect(reply.status).toBe(200)
    const list = decodeWith(AlbumList, reply.body)
    expect(list.data.map((a) => a.id)).toEqual([4, 1, 2])
    expect(list.meta).toEqual({ total: 3, limit: 20, offset: 0, next_cursor: "" })
    expect(reply.text).not.toContain("CANARY")
    const singles = decodeWith(AlbumList, (await get("/v1/albums?type=single")).body)
    expect(singles.data.map((a) => [a.id, a.album_type])).toEqual([[4, "single"]])
    const byTitle = decodeWith(AlbumList, (await get("/v1/albums?sort=title")).body)
    expect(byTitle.data.map((a) => a.title)).toEqual(["Cindai", "Hati", "Search EP"])
    const reversed = decodeWith(AlbumList, (await get("/v1/albums?sort=title&order=desc")).body)
    expect(reversed.data.map((a) => a.title)).toEqual(["Search EP", "Hati", "Cindai"])
  })

  test("walking by cursor returns the same rows as by offset; bad values are bad_request", async () => {
    for (const path of ["/v1/albums?limit=1", "/v1/albums?limit=2&sort=title", "/v1/albums?limit=1&order=asc"]) {
      const limit = Number(/limit=(\d+)/.exec(path)?.[1])
      expect((await walkByCursor(path)).map((a) => a.id)).toEqual((await walkByOffset(path, limit)).map((a) => a.id))
    }
    for (const [query, name] of [["type=lp", "type"], ["sort=popular", "sort"], ["limit=81", "limit"]] as const) {
      const reply = await get(`/v1/albums?${query}`)
      expect(reply.status).toBe(400)
      expect(reply.body.error.message).toContain(name)
    }
  })
})

describe("GET /v1/curated-lists", () => {
  test("lists public lists without their tracks, most recently updated first, counting visible items", async () => {
    const reply = await get("/v1/curated-lists")
    expect(reply.status).toBe(200)
    const list = decodeWith(CuratedListList, reply.body)
    expect(list.data).toEqual(PUBLIC_LIST_SUMMARIES)
    expect(list.meta.total).toBe(2)
    expect(reply.text).not.toContain("CANARY")
    const page = await walkByCursor("/v1/curated-lists?limit=1")
    expect(page.map((l) => l.id)).toEqual([1, 2])
  })
})

describe("deep pagination (issue 4 point 2)", () => {
  const database = resolveTestDatabase()
  let deep: TestServer | undefined
  afterAll(async () => {
    await deep?.stop()
    await (await database).drop()
  })

  test("walking 10,000+ songs by cursor returns every row once, in order, with deep pages as cheap as the first", async () => {
    deep = await startServer({ database: await database })
    // 11,000 extra public songs with many equal dates and view counts, so the id tie-breaker matters
    await deep.sql(`
      INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views)
      SELECT n, 'Deep ' || n, 'deep-' || n, date '2000-01-01' + (n % 97), 'FULL', now() - interval '1 day',
             CASE WHEN n % 3 = 0 THEN NULL ELSE n % 50 END
      FROM generate_series(100000, 110999) AS n`)
    await deep.sql("ANALYZE songs")
    const expected = await deep.sql<{ id: number }>(
      "SELECT id FROM public_songs ORDER BY released_at DESC, id DESC"
    )
    expect(expected.length).toBeGreaterThan(11_000)
    const started = performance.now()
    const first = await get("/v1/songs?limit=80", deep.baseUrl)
    const firstMs = performance.now() - started
    const rows = await walkByCursor("/v1/songs?limit=80", deep.baseUrl)
    expect(rows.map((r) => r.id)).toEqual(expected.map((r) => r.id))
    expect(first.body.data.map((r: { id: number }) => r.id)).toEqual(expected.slice(0, 80).map((r) => r.id))

    // the page after row 10,000 costs about what page 1 costs
    const cursorAt = (await get(`/v1/songs?limit=80&offset=9920`, deep.baseUrl)).body.meta.next_cursor
    const deepStarted = performance.now()
    const deepPage = await get(`/v1/songs?limit=80&cursor=${cursorAt}`, deep.baseUrl)
    const deepMs = performance.now() - deepStarted
    expect(deepPage.body.meta.offset).toBe(10_000)
    expect(deepPage.body.data.map((r: { id: number }) => r.id)).toEqual(expected.slice(10_000, 10_080).map((r) => r.id))
    expect(deepMs).toBeLessThan(firstMs * 5 + 100)

    const popular = await walkByCursor("/v1/songs?limit=80&sort=popular", deep.baseUrl)
    const popularExpected = await deep.sql<{ id: number }>(
      "SELECT id FROM public_songs ORDER BY coalesce(vidsvc_views, -1) DESC, id DESC"
    )
    expect(popular.map((r) => r.id)).toEqual(popularExpected.map((r) => r.id))
  }, 600_000)
})
