import { beforeAll, describe, expect, test } from "bun:test"
import { AlbumDetail } from "../src/Contract/Album.js"
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

const albumDetail = async (id: number) => {
  const reply = await get(`/v1/albums/${id}`)
  expect(reply.status).toBe(200)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  return { reply, album: decodeWith(DetailEnvelope(AlbumDetail, "AlbumDetailResponse"), reply.body).data }
}

describe("GET /v1/albums/{albumId}", () => {
  test("shows the album with its explicit artists and its public songs in track order, each with its position", async () => {
    const { reply, album } = await albumDetail(1)
    expect(Object.keys(reply.body.data)).toEqual([
      "id", "title", "album_type", "artwork_url", "released_at", "artists", "songs", "artwork_colors"
    ])
    expect(album).toMatchObject({
      id: 1,
      title: "Cindai",
      album_type: "album",
      artwork_url: `${CDN}/artwork/albums/1.jpg`,
      released_at: "1997-05-01",
      artwork_colors: { dominant: "#aa3300", average: "#884422" }
    })
    expect(album.artists).toEqual([
      { id: 1, name: "Siti Nurhaliza", prefix_title: "Dato' Sri", is_group: false, avatar_url: `${CDN}/avatars/artists/1.jpg` }
    ])
    // tracks 2 (unpublished) and 4 (deleted) are left out; positions keep their numbers
    expect(album.songs.map((s) => [s.position, s.id])).toEqual([[1, 1], [3, 3], [5, 9]])
    expect(Object.keys(reply.body.data.songs[0])).toEqual([
      "id", "title", "slug", "released_at", "artwork_url", "artwork_source", "vidsvc_video_id", "vidsvc_video_url",
      "vidsvc_views", "vidsvc_views_per_day", "artists", "artwork_average", "date_type", "duration_ms",
      "vidsvc_duration_seconds", "streama_url", "streamb_url", "position"
    ])
    expect(album.songs[0]).toMatchObject({
      date_type: "FULL",
      duration_ms: 245000,
      vidsvc_duration_seconds: 245,
      streama_url: "https://streama.example/track/sa1",
      streamb_url: "https://streamb.example/song/sb1",
      artists: [{ id: 1, name: "Siti Nurhaliza" }]
    })
    expect(reply.body.data.songs[0].writers).toBeUndefined()
  })

  test("an album without explicit artists shows the performers of its songs, with placeholders for absent images", async () => {
    const { album } = await albumDetail(2)
    expect(album.artists).toEqual([
      { id: 3, name: "Search", prefix_title: null, is_group: true, avatar_url: `${CDN}/placeholders/avatar.png` }
    ])
    expect(album.artwork_url).toBe(`${CDN}/placeholders/album-artwork.png`)
    expect(album.artwork_colors).toEqual({ dominant: "#808080", average: "#808080" })
    expect(album.songs.map((s) => s.id)).toEqual([2])
  })

  test("an unpublished album answers not_found like an id that never existed", async () => {
    expectHiddenNotFound(await get("/v1/albums/3"))
    expectHiddenNotFound(await get("/v1/albums/4242"))
  })

  test("a malformed albumId is bad_request naming albumId", async () => {
    for (const id of ["abc", "0", "-3", "1e3", "0x10", "4242.0", "%2012", "012", "99999999999"]) {
      const reply = await get(`/v1/albums/${id}`)
      expect(reply.status).toBe(400)
      expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("bad_request")
      expect(reply.body.error.message).toContain("albumId")
    }
  })
})
