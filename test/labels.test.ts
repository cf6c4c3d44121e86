import { beforeAll, describe, expect, test } from "bun:test"
import { DetailEnvelope, ListEnvelope } from "../src/Contract/Envelope.js"
import { SongSummary } from "../src/Contract/Song.js"
import { Label } from "../src/Contract/Label.js"
import { decodeWith, request } from "./support/http.js"
import { expectBadRequest, expectNotFound, expectNothingPrivate, walkByCursor, walkByOffset } from "./support/pages.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const get = (path: string) => request(server.baseUrl, path)
const LabelList = ListEnvelope(Label, "LabelList")
const SongList = ListEnvelope(SongSummary, "SongList")

// Fixture: Rusa Records has public songs 1, 3, 9 (not the hidden 10 and 11) and album 1 (not the
// hidden album 3); Suria Records has song 2 (not the future 12) and album 2; Indie Kita has nothing.
const RUSA = { id: 1, name: "Rusa Records", formerly_known_as: "Rusa Music", slug: "rusa-records", song_count: 3, album_count: 1 }
const SURIA = { id: 2, name: "Suria Records", formerly_known_as: "", slug: "suria-records", song_count: 1, album_count: 1 }
const INDIE = { id: 3, name: "Indie Kita", formerly_known_as: "", slug: "indie-kita", song_count: 0, album_count: 0 }

describe("GET /v1/labels", () => {
  test("lists labels with the fields of a label, most public songs first", async () => {
    const reply = await get("/v1/labels")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
    expectNothingPrivate(reply)
    const list = decodeWith(LabelList, reply.body)
    expect(list.data).toEqual([RUSA, SURIA, INDIE])
    expect(list.meta).toEqual({ total: 3, limit: 20, offset: 0, next_cursor: "" })
    expect(Object.keys(reply.body.data[0])).toEqual(["id", "name", "formerly_known_as", "slug", "song_count", "album_count"])
  })

  test("sort=name is A-Z, sort=album_count most first with ties by id; order flips each", async () => {
    const ids = async (query: string) => decodeWith(LabelList, (await get(`/v1/labels?${query}`)).body).data.map((l) => l.id)
    expect(await ids("sort=name")).toEqual([3, 1, 2])
    expect(await ids("sort=name&order=desc")).toEqual([2, 1, 3])
    expect(await ids("sort=album_count")).toEqual([2, 1, 3])
    expect(await ids("sort=album_count&order=asc")).toEqual([3, 1, 2])
    expect(await ids("sort=total_songs&order=asc")).toEqual([3, 2, 1])
  })

  test("q matches current and former names, ignoring case", async () => {
    const names = async (q: string) => decodeWith(LabelList, (await get(`/v1/labels?q=${q}`)).body).data.map((l) => l.name)
    expect(await names("music")).toEqual(["Rusa Records"])
    expect(await names("RECORDS")).toEqual(["Rusa Records", "Suria Records"])
    expect(await names("nothing-like-this")).toEqual([])
    // LIKE's own characters and text that folds to nothing are just text: no label contains them
    for (const text of ["%25", "_", "%25%25", "'"]) expect(await names(text)).toEqual([])
  })

  test("walking by cursor gives the same rows as by offset, for every sort", async () => {
    for (const query of ["sort=total_songs", "sort=name", "sort=album_count", "sort=album_count&order=asc"]) {
      const byCursor = await walkByCursor(server.baseUrl, `/v1/labels?${query}`, 1)
      expect(byCursor).toHaveLength(3)
      expect(byCursor).toEqual(await walkByOffset(server.baseUrl, `/v1/labels?${query}`, 1))
    }
  }, 60_000)

  test("bad parameter values and foreign cursors are bad_request naming the parameter", async () => {
    expectBadRequest(await get("/v1/labels?limit=0"), "limit")
    expectBadRequest(await get("/v1/labels?limit=81"), "limit")
    expectBadRequest(await get("/v1/labels?limit=1e3"), "limit")
    expectBadRequest(await get("/v1/labels?offset=-1"), "offset")
    expectBadRequest(await get("/v1/labels?sort=bogus"), "sort")
    expectBadRequest(await get("/v1/labels?order=sideways"), "order")
    const byName = (await get("/v1/labels?sort=name&limit=1")).body.meta.next_cursor
    expectBadRequest(await get(`/v1/labels?cursor=${byName}`), "cursor")
    expectBadRequest(await get(`/v1/labels?sort=name&q=rusa&cursor=${byName}`), "cursor")
  })
})

describe("GET /v1/labels/{labelId}", () => {
  test("answers the label shape with public counts", async () => {
    const reply = await get("/v1/labels/1")
    expect(reply.status).toBe(200)
    expect(decodeWith(DetailEnvelope(Label, "LabelResponse"), reply.body).data).toEqual(RUSA)
    expect(decodeWith(DetailEnvelope(Label, "LabelResponse"), (await get("/v1/labels/3")).body).data).toEqual(INDIE)
  })

  test("an unknown id is not_found; a malformed one is bad_request", async () => {
    expectNotFound(await get("/v1/labels/999"))
    for (const id of ["abc", "0", "-3", "1e3", "0x10", "99999999999"]) {
      expectBadRequest(await get(`/v1/labels/${id}`), "labelId")
    }
  })
})

describe("GET /v1/labels/{labelId}/songs", () => {
  test("lists the label's public songs as song summaries, newest first", async () => {
    const reply = await get("/v1/labels/1/songs")
    expect(reply.status).toBe(200)
    expectNothingPrivate(reply)
    const list = decodeWith(SongList, reply.body)
    expect(list.data.map((song) => song.id)).toEqual([3, 9, 1])
    expect(list.meta).toEqual({ total: 3, limit: 20, offset: 0, next_cursor: "" })
    expect(list.data[2]).toMatchObject({ id: 1, title: "Cindai", released_at: "1997-05-01", artists: [{ id: 1, name: "Siti Nurhaliza" }] })
  })

  test("sort=title is A-Z and sort=popular most viewed first", async () => {
    const ids = async (query: string) => decodeWith(SongList, (await get(`/v1/labels/1/songs?${query}`)).body).data.map((s) => s.id)
    expect(await ids("sort=title")).toEqual([3, 1, 9])
    expect(await ids("sort=popular")).toEqual([1, 9, 3])
  })

  test("never shows the future song, and pages walk alike by cursor and offset", async () => {
    const list = decodeWith(SongList, (await get("/v1/labels/2/songs")).body)
    expect(list.data.map((song) => song.id)).toEqual([2])
    for (const sort of ["released", "title", "popular"]) {
      const byCursor = await walkByCursor(server.baseUrl, `/v1/labels/1/songs?sort=${sort}`, 2)
      expect(byCursor).toEqual(await walkByOffset(server.baseUrl, `/v1/labels/1/songs?sort=${sort}`, 2))
    }
  }, 60_000)

  test("a label without songs has an empty list; an unknown label is not_found", async () => {
    expect((await get("/v1/labels/3/songs")).body).toEqual({ data: [], meta: { total: 0, limit: 20, offset: 0, next_cursor: "" } })
    expectNotFound(await get("/v1/labels/999/songs"))
    expectBadRequest(await get("/v1/labels/abc/songs"), "labelId")
  })

  test("a cursor of another label or sort is bad_request", async () => {
    const cursor = (await get("/v1/labels/1/songs?limit=1")).body.meta.next_cursor
    expect(cursor).not.toBe("")
    expectBadRequest(await get(`/v1/labels/2/songs?cursor=${cursor}`), "cursor")
    expectBadRequest(await get(`/v1/labels/1/songs?sort=title&cursor=${cursor}`), "cursor")
    expectBadRequest(await get("/v1/labels/1/songs?sort=newest"), "sort")
  })
})
