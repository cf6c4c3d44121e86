import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { expectBadRequest, expectNothingPrivate } from "./support/pages.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 120_000)

const get = (path: string) => request(server.baseUrl, path)

describe("batch lookups (ids=)", () => {
  test("songs come in the order asked; hidden and unknown ids are left out; a repeated id once", async () => {
    const reply = await get("/v1/songs?ids=3,10,1,11,12,999999,3")
    expect(reply.status).toBe(200)
    expect(reply.body.data.map((s: any) => s.id)).toEqual([3, 1])
    expect(reply.body.meta).toEqual({ total: 2, limit: 6, offset: 0, next_cursor: "" })
    const list = await get("/v1/songs?limit=80")
    const listed = list.body.data.find((s: any) => s.id === 1)
    expect(reply.body.data[1]).toEqual(listed)
  })

  test("albums and artists the same way, with their list shapes", async () => {
    const albums = await get("/v1/albums?ids=4,3,1")
    expect(albums.body.data.map((a: any) => a.id)).toEqual([4, 1])
    expect(albums.body.meta.total).toBe(2)
    const browse = await get("/v1/albums?limit=80")
    expect(albums.body.data[0]).toEqual(browse.body.data.find((a: any) => a.id === 4))
    const artists = await get("/v1/artists?ids=10,2,1")
    expect(artists.body.data.map((a: any) => a.id)).toEqual([2, 1])
    const all = await get("/v1/artists?limit=80")
    expect(artists.body.data[1]).toEqual(all.body.data.find((a: any) => a.id === 1))
  })

  test("bad ids, too many ids, and ids with other list parameters are bad_request", async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => i + 1).join(",")
    expect((await get(`/v1/songs?ids=${fifty}`)).status).toBe(200)
    for (const path of [
      `/v1/songs?ids=${fifty},51`,
      "/v1/songs?ids=",
      "/v1/songs?ids=01",
      "/v1/songs?ids=1,,2",
      "/v1/songs?ids=2147483648",
      "/v1/songs?ids=1&limit=5",
      "/v1/songs?ids=1&sort=title",
      "/v1/albums?ids=1&type=ep",
      "/v1/artists?ids=1&q=siti",
      "/v1/artists?ids=1&offset=1"
    ]) {
      const reply = await get(path)
      expect(reply.status).toBe(400)
      expect(reply.body.error.code).toBe("bad_request")
    }
  })
})

describe("lookups by external id (vidsvc_id=, streama_id=, streamb_id=)", () => {
  // hidden songs with ids of their own, and a deleted copy (song 11) carrying song 1's ids
  const HIDDEN_IDS = `
    UPDATE songs SET vidsvc_video_id = 'hidden-v-10', streama_id = 'hidden-a-10', streamb_id = 'hidden-b-10' WHERE id = 10;
    UPDATE songs SET vidsvc_video_id = 'hidden-v-12', streama_id = 'hidden-a-12', streamb_id = 'hidden-b-12' WHERE id = 12;
    UPDATE songs SET vidsvc_video_id = 'dQw4w9WgXcQ', streama_id = 'sa1', streamb_id = 'sb1' WHERE id = 11`
  beforeAll(async () => {
    await server.sql(HIDDEN_IDS)
  })
  afterAll(async () => {
    await server.sql("UPDATE songs SET vidsvc_video_id = NULL, streama_id = NULL, streamb_id = NULL WHERE id IN (10, 11, 12)")
  })

  test("each finds public songs in the order asked, as their list items; unknown and hidden ids are left out, a repeated one once", async () => {
    const reply = await get("/v1/songs?vidsvc_id=abcdefghijk,hidden-v-10,nope,dQw4w9WgXcQ,hidden-v-12,abcdefghijk")
    expect(reply.status).toBe(200)
    expect(reply.body.data.map((s: any) => s.id)).toEqual([2, 1])
    expect(reply.body.meta).toEqual({ total: 2, limit: 5, offset: 0, next_cursor: "" })
    expect(reply.headers.get("link")).toBeNull()
    const byIds = await get("/v1/songs?ids=2,1")
    expect(reply.body.data).toEqual(byIds.body.data)
    expectNothingPrivate(reply)
    expect((await get("/v1/songs?streama_id=hidden-a-10,sa1")).body.data.map((s: any) => s.id)).toEqual([1])
    expect((await get("/v1/songs?streamb_id=sb1,hidden-b-12")).body.data.map((s: any) => s.id)).toEqual([1])
  })

  test("a hidden song is never found by its external ids, alone or not", async () => {
    for (const [name, prefix] of [["vidsvc_id", "hidden-v"], ["streama_id", "hidden-a"], ["streamb_id", "hidden-b"]]) {
      for (const id of [10, 12]) {
        const reply = await get(`/v1/songs?${name}=${prefix}-${id}`)
        expect(reply.status).toBe(200)
        expect(reply.body).toEqual({ data: [], meta: { total: 0, limit: 1, offset: 0, next_cursor: "" } })
      }
    }
    // the deleted song 11 holds song 1's ids: only song 1 comes back
    const shared = await get("/v1/songs?vidsvc_id=dQw4w9WgXcQ")
    expect(shared.body.data.map((s: any) => s.id)).toEqual([1])
    expectNothingPrivate(shared)
  })

  test("50 ids are taken; malformed values and other list parameters are a bad_request naming the parameter", async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `v${i}`).join(",")
    expect((await get(`/v1/songs?streama_id=${fifty}`)).status).toBe(200)
    for (const name of ["vidsvc_id", "streama_id", "streamb_id"]) {
      for (const value of [
        "",
        ",",
        "a,,b",
        ",a",
        "a,",
        `${fifty},v50`,
        "x".repeat(65),
        `a,${"y".repeat(65)}`,
        "a%20b",
        "a+b",
        "a.b",
        "a%00b",
        "%FF",
        "%C3%BC",
        "a'b",
        "a;b",
        "%3Cscript%3E",
        "%F0%9F%98%80"
      ]) {
        const reply = await get(`/v1/songs?${name}=${value}`)
        expect({ value, status: reply.status }).toEqual({ value, status: 400 })
        expectBadRequest(reply, name)
        expect(Object.keys(reply.body)).toEqual(["error"])
      }
      for (const others of ["limit=5", "offset=1", "cursor=abc", "sort=title", "genre=pop", "ids=1", "vidsvc_id=x", "streamb_id=y"]) {
        if (others.startsWith(name)) continue
        const reply = await get(`/v1/songs?${name}=sa1&${others}`)
        expect({ others, status: reply.status }).toEqual({ others, status: 400 })
        expect(reply.body.error.code).toBe("bad_request")
        expect(reply.body.error.message).toContain("cannot be combined")
      }
    }
  })
})
