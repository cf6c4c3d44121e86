import { beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
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
