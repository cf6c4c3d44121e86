import { beforeAll, describe, expect, test } from "bun:test"
import { CuratedList } from "../src/Contract/CuratedList.js"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { decodeWith, request } from "./support/http.js"
import { expectHiddenNotFound } from "./support/pages.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const CDN = "https://cdn.test.example"
const get = (path: string) => request(server.baseUrl, path)

const curatedList = async (id: number) => {
  const reply = await get(`/v1/curated-lists/${id}`)
  expect(reply.status).toBe(200)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  return { reply, list: decodeWith(DetailEnvelope(CuratedList, "CuratedListResponse"), reply.body).data }
}

describe("GET /v1/curated-lists/{listId}", () => {
  test("a songs list shows its public songs in curated order, with writers, and an empty albums array", async () => {
    const { reply, list } = await curatedList(1)
    expect(Object.keys(reply.body.data)).toEqual([
      "id", "title", "description", "artwork_url", "artwork_colors", "updated_at", "show_artists", "show_writers",
      "content_type", "songs", "albums"
    ])
    expect(list).toMatchObject({
      id: 1,
      title: "Lagu Raya Terbaik",
      description: "Festive favourites.",
      artwork_url: `${CDN}/artwork/lists/1.jpg`,
      artwork_colors: { dominant: "#112233", average: "#445566" },
      updated_at: "2024-05-01T08:30:00.000Z",
      show_artists: true,
      show_writers: true,
      content_type: "songs",
      albums: []
    })
    // entries 2 (unpublished), 4 (deleted) and 5 (future) are left out
    expect(list.songs.map((s) => s.id)).toEqual([3, 1])
    expect(list.songs[0]?.writers).toEqual([{ id: 2, name: "M. Nasir" }])
    expect(list.songs[0]?.artists).toEqual([{ id: 1, name: "Siti Nurhaliza" }, { id: 11, name: "Zainal Abidín" }])
    // M. Nasir is composer and lyricist of song 1: one writer entry
    expect(list.songs[1]?.writers).toEqual([{ id: 2, name: "M. Nasir" }])
    expect(Object.keys(reply.body.data.songs[0]).at(-1)).toBe("writers")
    expect(reply.body.data.songs[0].position).toBeUndefined()
    expect(reply.text).not.toContain("CANARY")
  })

  test("an albums list shows its public albums with resolved artists, and an empty songs array", async () => {
    const { list } = await curatedList(2)
    expect(list).toMatchObject({ content_type: "albums", songs: [], description: null, artwork_url: null, artwork_colors: null })
    // the hidden album 3 is left out
    expect(list.albums.map((a) => a.id)).toEqual([2, 1])
    expect(list.albums[0]).toEqual({
      id: 2,
      title: "Search EP",
      album_type: "ep",
      artwork_url: null,
      song_count: 1,
      latest_released_at: "1989-02-01",
      artists: [{ id: 3, name: "Search", prefix_title: null, is_group: true, avatar_url: `${CDN}/placeholders/avatar.png` }]
    })
    // album 1 counts only its public songs (1, 3 and 9) and its latest is song 3's date
    expect(list.albums[1]).toMatchObject({ song_count: 3, latest_released_at: "2008-01-01", artwork_url: `${CDN}/artwork/albums/1.jpg` })
  })

  test("an unpublished list answers not_found like an id that never existed", async () => {
    expectHiddenNotFound(await get("/v1/curated-lists/3"))
    expectHiddenNotFound(await get("/v1/curated-lists/4242"))
  })

  test("a malformed listId is bad_request naming listId", async () => {
    for (const id of ["abc", "0", "-3", "1e3", "0x10", "4242.0", "%2012", "012", "99999999999"]) {
      const reply = await get(`/v1/curated-lists/${id}`)
      expect(reply.status).toBe(400)
      expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("bad_request")
      expect(reply.body.error.message).toContain("listId")
    }
  })
})
