import { beforeAll, describe, expect, test } from "bun:test"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { SongContributors } from "../src/Contract/Member.js"
import { SimilarSongs, SongDetail } from "../src/Contract/SongDetail.js"
import { decodeWith, request, type Reply } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const CANARY_SONGS = [10, 11, 12]
const CDN = "https://cdn.test.example"
const FORMER_MEMBER = { username: "", name: "Former member", avatar_url: `${CDN}/placeholders/avatar.png` }

const get = (path: string) => request(server.baseUrl, path)

const expectJson = (reply: Reply, status: number) => {
  expect(reply.status).toBe(status)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
}

const songDetail = async (id: number) => {
  const reply = await get(`/v1/songs/${id}`)
  expectJson(reply, 200)
  return decodeWith(DetailEnvelope(SongDetail, "SongDetailResponse"), reply.body).data
}

const similar = async (id: number) => {
  const reply = await get(`/v1/songs/${id}/similar`)
  expectJson(reply, 200)
  expect(reply.body.meta).toBeUndefined()
  return decodeWith(DetailEnvelope(SimilarSongs, "SimilarSongsResponse"), reply.body).data
}

const expectNotFound = (reply: Reply) => {
  expectJson(reply, 404)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("not_found")
  expect(reply.text).not.toContain("CANARY")
}

describe("GET /v1/songs/{songId}", () => {
  test("a published song shows every field of the song detail in order, with every credit", async () => {
    const reply = await get("/v1/songs/1")
    expectJson(reply, 200)
    const song = decodeWith(DetailEnvelope(SongDetail, "SongDetailResponse"), reply.body).data
    expect(Object.keys(reply.body.data)).toEqual([
      "id", "title", "slug", "released_at", "published_at", "views", "claps", "love_count", "artwork_url",
      "artwork_source", "notes", "lyrics", "media", "vidsvc", "credits", "genres", "labels", "artwork_colors",
      "streama_popularity", "version_of", "versions"
    ])
    expect(song).toMatchObject({
      id: 1,
      title: "Cindai",
      slug: "cindai",
      released_at: "1997-05-01",
      published_at: "2020-01-01T00:00:00.000Z",
      views: 1500,
      claps: 40,
      artwork_url: `${CDN}/artwork/songs/1.jpg`,
      artwork_source: "Custom",
      notes: "A classic.",
      media: {
        vidsvc_id: "dQw4w9WgXcQ",
        streama_id: "sa1",
        streamb_id: "sb1",
        streama_url: "https://streama.example/track/sa1",
        streamb_url: "https://streamb.example/song/sb1",
        date_type: "FULL",
        duration_ms: 245000
      },
      vidsvc: { duration_seconds: 245, views: 9000000, views_per_day: 1200, likes: 50000, last_fetched: "2026-11-01T00:00:00.000Z" },
      artwork_colors: { dominant: "#aa3300", average: "#884422" },
      streama_popularity: 71
    })
    expect(song.credits.map((c) => [c.order, c.artist.id, c.role.slug])).toEqual([
      [1, 1, "vocals"], [2, 2, "composer"], [3, 2, "lyricist"], [4, 5, "guitar"]
    ])
    expect(song.credits[0]?.artist).toEqual({
      id: 1, name: "Siti Nurhaliza", is_group: false, avatar_url: `${CDN}/avatars/artists/1.jpg`, username: "sitinurhaliza"
    })
    expect(song.credits[1]?.artist.username).toBeNull()
    expect(song.credits[1]?.artist.avatar_url).toBe(`${CDN}/placeholders/avatar.png`)
    expect(song.credits[3]?.role).toEqual({ id: 6, title: "Guitar", slug: "guitar", tag: "other", order: 6 })
    expect(song.genres).toEqual([
      { id: 4, slug: "irama-malaysia", title: "Irama Malaysia" },
      { id: 1, slug: "pop", title: "Pop" }
    ])
    expect(song.labels).toEqual([{ id: 1, name: "Rusa Records" }])
  })

  test("love_count counts only public members' loves", async () => {
    // song 1 is loved by aishah_fan, by the banned member and by the member without a handle
    expect((await songDetail(1)).love_count).toBe(1)
    expect((await songDetail(3)).love_count).toBe(1)
  })

  test("absent values are filled as docs/api.md says: empty text, zeros, FULL, placeholders, grey colours", async () => {
    const song = await songDetail(3)
    expect(song).toMatchObject({
      notes: "",
      lyrics: "",
      artwork_url: `${CDN}/placeholders/song-artwork.png`,
      artwork_source: null,
      media: { vidsvc_id: "", streama_id: "", streamb_id: "", streama_url: "", streamb_url: "", date_type: "YEAR", duration_ms: 0 },
      vidsvc: { duration_seconds: 0, views: 0, views_per_day: 0, likes: 0, last_fetched: "" },
      artwork_colors: { dominant: "#808080", average: "#808080" },
      streama_popularity: 0
    })
    expect((await songDetail(5)).media.date_type).toBe("FULL")
    expect((await songDetail(2)).released_at).toBe("1989-02-01")
  })

  test("versions and version_of hold public song summaries only", async () => {
    const original = await songDetail(1)
    // song 9 is a live version of 1; the cover 10 is unpublished
    expect(original.versions.map((s) => s.id)).toEqual([9])
    expect(original.version_of).toEqual([])
    const live = await songDetail(9)
    expect(live.version_of.map((s) => s.id)).toEqual([1])
    expect(live.version_of[0]?.artists).toEqual([{ id: 1, name: "Siti Nurhaliza" }])
  })

  test("unpublished, deleted and future songs answer not_found exactly like an id that never existed", async () => {
    const missing = await get("/v1/songs/4242")
    expectNotFound(missing)
    for (const id of CANARY_SONGS) {
      const reply = await get(`/v1/songs/${id}`)
      expectNotFound(reply)
      expect(reply.body.error.message).toBe(missing.body.error.message.replace("4242", String(id)))
    }
  })
})

describe("song ids are checked before any lookup", () => {
  const malformed = ["abc", "0", "-3", "1e3", "0x10", "4242.0", "%2012", "012", "99999999999", "2147483648"]
  for (const suffix of ["", "/similar", "/contributors"]) {
    test(`a malformed songId on /v1/songs/{songId}${suffix} is bad_request naming songId`, async () => {
      for (const id of malformed) {
        const reply = await get(`/v1/songs/${id}${suffix}`)
        expectJson(reply, 400)
        expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("bad_request")
        expect(reply.body.error.message).toContain("songId")
      }
      expectNotFound(await get(`/v1/songs/2147483647${suffix}`))
    })
  }
})

describe("GET /v1/songs/{songId}/similar", () => {
  test("groups songs by shared performer, then shared writer, then shared genre", async () => {
    const result = await similar(1)
    const ids = (list: ReadonlyArray<{ id: number }>) => list.map((s) => s.id)
    // Siti Nurhaliza performs on 3 and 9; M. Nasir writes 4 and 8 (and 3, 9 already matched by performer)
    expect(ids(result.by_artist).sort()).toEqual([3, 9])
    expect(ids(result.by_writers).sort()).toEqual([4, 8])
    // Pop or Irama Malaysia, sharing no credit
    expect(ids(result.by_others).sort()).toEqual([6, 7])
  })

  test("arrays hold up to 10 songs, never the song itself, never a song twice, most watched per day first", async () => {
    // Amy performs on 60 filler songs and on song 13
    const result = await similar(100)
    const all = [...result.by_artist, ...result.by_writers, ...result.by_others].map((s) => s.id)
    expect(result.by_artist).toHaveLength(10)
    expect(all).not.toContain(100)
    expect(new Set(all).size).toBe(all.length)
    expect(result.by_artist.map((s) => s.id)).toEqual([159, 158, 157, 156, 155, 154, 153, 152, 151, 150])
    // song 13 shares Amy: it belongs to by_artist (first match wins), even though it is not in its first 10
    expect(result.by_others.map((s) => s.id)).not.toContain(13)
    expect(result.by_others.map((s) => s.id)).toContain(5)
  })

  test("hidden songs are never similar, and a hidden song has no similar songs", async () => {
    for (const id of [1, 3, 9, 100]) {
      const reply = await get(`/v1/songs/${id}/similar`)
      expect(reply.text).not.toContain("CANARY")
      const all = Object.values(reply.body.data as Record<string, Array<{ id: number }>>).flat().map((s) => s.id)
      for (const canary of CANARY_SONGS) expect(all).not.toContain(canary)
    }
    for (const id of CANARY_SONGS) expectNotFound(await get(`/v1/songs/${id}/similar`))
    expectNotFound(await get("/v1/songs/4242/similar"))
  })
})

describe("GET /v1/songs/{songId}/contributors", () => {
  test("shows the adder, the latest editor and the history newest first; hidden members are Former member", async () => {
    const reply = await get("/v1/songs/1/contributors")
    expectJson(reply, 200)
    const result = decodeWith(DetailEnvelope(SongContributors, "SongContributorsResponse"), reply.body).data
    const aishah = { username: "aishah_fan", name: "Aishah Rahman", avatar_url: `${CDN}/avatars/1.jpg` }
    expect(result.song_id).toBe(1)
    expect(result.added_by).toEqual(aishah)
    // the latest edit is by the banned member
    expect(result.edited_by).toEqual(FORMER_MEMBER)
    expect(result.contributions).toEqual([
      { action: "edit", action_at: "2023-01-01T00:00:00.000Z", user: FORMER_MEMBER },
      { action: "edit", action_at: "2022-01-01T00:00:00.000Z", user: FORMER_MEMBER },
      { action: "edit", action_at: "2021-01-01T00:00:00.000Z", user: aishah },
      { action: "add", action_at: "2020-01-01T00:00:00.000Z", user: aishah }
    ])
    expect(reply.text).not.toMatch(/CANARY|canary_banned|@mail/)
  })

  test("a song nobody edited has the adder as editor", async () => {
    const reply = await get("/v1/songs/2/contributors")
    const result = decodeWith(DetailEnvelope(SongContributors, "SongContributorsResponse"), reply.body).data
    expect(result.added_by.username).toBe("zul")
    expect(result.edited_by).toEqual(result.added_by)
    expect(result.contributions).toHaveLength(1)
  })

  test("a hidden song's history is not_found", async () => {
    for (const id of CANARY_SONGS) expectNotFound(await get(`/v1/songs/${id}/contributors`))
  })
})

describe("the OpenAPI document", () => {
  test("describes the song endpoints with their shapes", async () => {
    const openapi = (await get("/v1/openapi.json")).body
    for (const path of ["/v1/songs", "/v1/songs/{songId}", "/v1/songs/{songId}/similar", "/v1/songs/{songId}/contributors"]) {
      expect(openapi.paths[path]?.get).toBeDefined()
    }
    expect(Object.keys(openapi.components.schemas.SongSummary.properties)).toEqual([
      "id", "title", "slug", "released_at", "artwork_url", "artwork_source", "vidsvc_video_id", "vidsvc_video_url",
      "vidsvc_views", "vidsvc_views_per_day", "artists", "artwork_average"
    ])
    expect(openapi.paths["/v1/songs/{songId}"].get.responses["404"]).toBeDefined()
  })
})
