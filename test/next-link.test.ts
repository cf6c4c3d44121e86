/**
 * Every paginated list links to its next page (RFC 8288 `Link: <...>; rel="next"`): the request's
 * path and parameters with the next cursor, on every answer of a page that has a next one (a
 * cache hit, a 304 and HEAD included), never on the last page; following the links walks the
 * pages that following meta.next_cursor walks.
 */
import * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Api } from "../src/Api.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { request } from "./support/http.js"
import { walkByCursor } from "./support/pages.js"
import { parameterNames } from "./support/samples.js"
import { startServer, type TestServer } from "./support/server.js"
import { hs256 } from "./support/tokens.js"

/** Every list that takes a cursor, with a path of the fixture that has several pages at `limit`. */
const LISTS: ReadonlyArray<{ readonly template: string; readonly path: string; readonly limit: number }> = [
  { template: "/v1/songs", path: "/v1/songs", limit: 9 },
  { template: "/v1/songs", path: "/v1/songs?sort=title&order=desc", limit: 9 },
  { template: "/v1/songs", path: "/v1/songs?genre=dangdut&sort=popular", limit: 9 },
  { template: "/v1/albums", path: "/v1/albums", limit: 1 },
  { template: "/v1/curated-lists", path: "/v1/curated-lists", limit: 1 },
  { template: "/v1/artists", path: "/v1/artists?sort=songs", limit: 2 },
  { template: "/v1/artists/:artistId/songs", path: "/v1/artists/4/songs?role=performer", limit: 9 },
  { template: "/v1/artists/:artistId/albums", path: "/v1/artists/1/albums", limit: 1 },
  { template: "/v1/genres/:slug/songs", path: "/v1/genres/dangdut/songs", limit: 9 },
  { template: "/v1/labels", path: "/v1/labels", limit: 1 },
  { template: "/v1/labels/:labelId/songs", path: "/v1/labels/1/songs", limit: 1 },
  { template: "/v1/users", path: "/v1/users?sort=name", limit: 9 },
  { template: "/v1/users/:username/contributions", path: "/v1/users/aishah_fan/contributions", limit: 9 },
  { template: "/v1/users/:username/loves", path: "/v1/users/aishah_fan/loves", limit: 1 },
  { template: "/v1/admin/songs", path: "/v1/admin/songs?status=all", limit: 9 }
]

const pagedTemplates = new Set<string>()
HttpApi.reflect(Api, {
  onGroup: () => undefined,
  onEndpoint: ({ endpoint }) => {
    const e = endpoint as HttpApiEndpoint.Top
    if (e.query !== undefined && parameterNames(e.query).includes("cursor")) pagedTemplates.add(e.path)
  }
})

const LINK = /^<([^<>]*)>; rel="next"$/

/** The target a Link header points to, or undefined without one. */
const linkTarget = (headers: Headers) => {
  const link = headers.get("link")
  if (link === null) return undefined
  const target = LINK.exec(link)?.[1]
  expect(target === undefined ? `malformed Link: ${link}` : "ok").toBe("ok")
  return target!
}

/** The parameters of a target, each as sent, in order. */
const paramsOf = (target: string) => new URLSearchParams(target.includes("?") ? target.slice(target.indexOf("?") + 1) : "")

let server: TestServer
let staff: Record<string, string>
beforeAll(async () => {
  // a second public album of artist 1, so that each list has pages to link
  server = await startServer({
    statements: [
      `INSERT INTO albums (id, title, slug, album_type, released_at, published_at) VALUES (900, 'Cindai Lagi', 'cindai-lagi', 'album', '2001-01-01', '2020-01-01T00:00:00Z');
       INSERT INTO album_artists (album_id, position, artist_id) VALUES (900, 1, 1)`
    ]
  })
  staff = { authorization: `Bearer ${await hs256()}` }
}, 60_000)
afterAll(() => server.close())

describe("Link to the next page", () => {
  test("the table names every list that takes a cursor", () => {
    expect(new Set(LISTS.map((list) => list.template))).toEqual(pagedTemplates)
  })

  for (const list of LISTS) {
    test(`${list.path}: following Link walks the pages next_cursor walks; the last page has none`, async () => {
      const headers = list.path.startsWith("/v1/admin") ? staff : {}
      const separator = list.path.includes("?") ? "&" : "?"
      const first = `${list.path}${separator}limit=${list.limit}&unknown=kept`
      const pages: Array<Array<unknown>> = []
      let target: string | undefined = first
      while (target !== undefined) {
        expect(pages.length).toBeLessThan(100)
        const reply = await request(server.baseUrl, target, { headers })
        expect(reply.status).toBe(200)
        pages.push(reply.body.data)
        const next = linkTarget(reply.headers)
        if (next === undefined) {
          expect(reply.body.meta.next_cursor).toBe("")
        } else {
          // same path and parameters (offset and cursor aside), the page's next cursor
          expect(next.split("?")[0]).toBe(list.path.split("?")[0]!)
          const asked = paramsOf(first)
          const linked = paramsOf(next)
          expect(linked.get("cursor")).toBe(reply.body.meta.next_cursor)
          linked.delete("cursor")
          expect([...linked]).toEqual([...asked])
        }
        target = next
      }
      expect(pages.length).toBeGreaterThan(1)
      const byCursor: Array<unknown> = await walkByCursor(server.baseUrl, `${list.path}${separator}unknown=kept`, list.limit, headers)
      expect(pages.flat()).toEqual(byCursor)
    })
  }

  test("a page reached by offset links to the next one by cursor, without the offset", async () => {
    const reply = await request(server.baseUrl, "/v1/songs?offset=3&limit=2&sort=title")
    const next = linkTarget(reply.headers)!
    expect(paramsOf(next).has("offset")).toBe(false)
    const linked = await request(server.baseUrl, next)
    expect(linked.body.meta.offset).toBe(5)
    const byOffset = await request(server.baseUrl, "/v1/songs?offset=5&limit=2&sort=title")
    expect(linked.body.data).toEqual(byOffset.body.data)
  })

  test("a Link is ASCII and a URI reference whatever the request's other parameters hold", async () => {
    const reply = await request(server.baseUrl, "/v1/songs?limit=2&x=%C3%BC%3E%22&y=a%20b&z")
    const next = linkTarget(reply.headers)!
    expect(next).toMatch(/^[\x21-\x7e]+$/)
    expect(next).toStartWith("/v1/songs?limit=2&x=%C3%BC%3E%22&y=a%20b&z&cursor=")
    expect((await request(server.baseUrl, next)).status).toBe(200)
  })

  test("no Link where there is no next page: lookups, the whole genre list, the change feed, the last page", async () => {
    for (const path of ["/v1/songs?ids=1,2,3", "/v1/songs?vidsvc_id=dQw4w9WgXcQ", "/v1/genres", "/v1/changes?limit=1", "/v1/songs?limit=80", "/v1/songs/1"]) {
      const reply = await request(server.baseUrl, path)
      expect({ path, status: reply.status, link: reply.headers.get("link") }).toEqual({ path, status: 200, link: null })
    }
  })
})

describe("Link through the response cache, 304, HEAD and CORS", () => {
  let edge: TestServer
  beforeAll(async () => {
    edge = await startEdgeServer({ ...REAL_EDGE_ENV })
  }, 60_000)
  afterAll(() => edge.stop())

  test("a miss, a hit under another spelling, a 304 and a HEAD each link from their own request; CORS exposes Link", async () => {
    const path = "/v1/songs?limit=3&sort=popular"
    const miss = await request(edge.baseUrl, path, { headers: { origin: "https://app.example" } })
    expect(miss.headers.get("x-cache")).toBe("miss")
    const cursor = miss.body.meta.next_cursor
    expect(miss.headers.get("link")).toBe(`<${path}&cursor=${cursor}>; rel="next"`)
    expect(miss.headers.get("access-control-expose-headers")!.split(", ")).toContain("Link")

    const respelled = "/v1/songs?sort=popular&utm_source=mail&limit=3"
    const hit = await request(edge.baseUrl, respelled)
    expect(hit.headers.get("x-cache")).toBe("hit")
    expect(hit.headers.get("link")).toBe(`<${respelled}&cursor=${cursor}>; rel="next"`)

    const notModified = await request(edge.baseUrl, path, { headers: { "if-none-match": miss.headers.get("etag")! } })
    expect(notModified.status).toBe(304)
    expect(notModified.headers.get("link")).toBe(miss.headers.get("link"))

    const head = await request(edge.baseUrl, path, { method: "HEAD" })
    expect(head.headers.get("link")).toBe(miss.headers.get("link"))
  })
})
