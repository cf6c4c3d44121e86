import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { PUBLIC_FRESHNESS } from "../src/Cache/Freshness.js"
import { makeRepresentation, matchIfNoneMatch } from "../src/Cache/Representation.js"
import { ResponseCache } from "../src/Cache/ResponseCache.js"
import { publicAnswer } from "../src/Http/Answer.js"
import { request } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { hs256 } from "./support/tokens.js"

const PUBLIC_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300, stale-if-error=86400"
// Rows in this file's id range (500-599), added and removed by the cache tests.
const CACHE_LABEL_ID = 501
const CACHE_SONG_ID = 502
const FEED_LABEL_ID = 503

let server: TestServer
beforeAll(async () => {
  server = await startEdgeServer({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "100000" })
}, 60_000)
afterAll(async () => {
  await server.sql("DELETE FROM labels WHERE id = $1", [CACHE_LABEL_ID])
  await server.sql("DELETE FROM songs WHERE id = $1", [CACHE_SONG_ID])
  await server.sql("DELETE FROM labels WHERE id = $1", [FEED_LABEL_ID])
  await server.stop()
})

/** fetch without Bun's automatic decompression, so the bytes on the wire can be checked. */
const raw = async (path: string, headers: Record<string, string> = {}, method = "GET") => {
  const response = await fetch(server.baseUrl + path, { method, headers, decompress: false })
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}

describe("validators and cache headers on public responses", () => {
  test("a public 200 has a strong ETag, public Cache-Control and Vary: Accept-Encoding", async () => {
    const reply = await request(server.baseUrl, "/v1/stats")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    expect(reply.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL)
    expect(reply.headers.get("vary")).toBe("Accept-Encoding")
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  })

  test("the same body gives the same ETag; another body another", async () => {
    const first = await request(server.baseUrl, "/v1/stats")
    const again = await request(server.baseUrl, "/v1/stats?again=1")
    const other = await request(server.baseUrl, "/v1")
    expect(again.text).toBe(first.text)
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"))
    expect(other.headers.get("etag")).not.toBe(first.headers.get("etag"))
  })

  test("If-None-Match with the ETag answers 304 with no body, the ETag and Cache-Control repeated", async () => {
    const first = await request(server.baseUrl, "/v1/stats")
    const etag = first.headers.get("etag") ?? ""
    for (const method of ["GET", "HEAD"]) {
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const reply = await request(server.baseUrl, "/v1/stats", { method, headers: { "if-none-match": ifNoneMatch } })
        expect(reply.status).toBe(304)
        expect(reply.text).toBe("")
        expect(reply.headers.get("etag")).toBe(etag)
        expect(reply.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL)
        expect(reply.headers.get("vary")).toBe("Accept-Encoding")
      }
    }
  })

  test("If-None-Match with another ETag answers 200 with the body", async () => {
    const reply = await request(server.baseUrl, "/v1/stats", { headers: { "if-none-match": `"not-this-one"` } })
    expect(reply.status).toBe(200)
    expect(reply.body.data.songs).toBe(70)
  })

  test("errors are never public: no-store and no ETag, even with If-None-Match", async () => {
    const reply = await request(server.baseUrl, "/v1/nothing-here", { headers: { "if-none-match": "*" } })
    expect(reply.status).toBe(404)
    expect(reply.headers.get("cache-control")).toBe("no-store")
    expect(reply.headers.get("etag")).toBeNull()
    expect(reply.headers.get("x-cache")).toBeNull()
  })

  test("health is never cached", async () => {
    for (const path of ["/v1/health", "/v1/health/ready"]) {
      const reply = await request(server.baseUrl, path)
      expect(reply.status).toBe(200)
      expect(reply.headers.get("cache-control")).toBe("no-store")
      expect(reply.headers.get("etag")).toBeNull()
    }
  })

  test("HEAD answers wherever GET does: same status and headers, no body", async () => {
    const index = await request(server.baseUrl, "/v1")
    const paths = [
      "/v1/openapi.json",
      "/docs",
      "/v1/nothing-here",
      ...index.body.data.endpoints
        .filter((endpoint: { path: string }) => !endpoint.path.includes(":") && !endpoint.path.startsWith("/v1/admin"))
        .map((endpoint: { path: string }) => endpoint.path)
    ]
    expect(paths.length).toBeGreaterThan(5)
    for (const path of paths) {
      const get = await request(server.baseUrl, path)
      const head = await request(server.baseUrl, path, { method: "HEAD" })
      expect({ path, status: head.status }).toEqual({ path, status: get.status })
      expect(head.text).toBe("")
      expect(head.headers.get("etag")).toBe(get.headers.get("etag"))
      expect(head.headers.get("cache-control")).toBe(get.headers.get("cache-control"))
    }
  })
})

describe("compression", () => {
  test("gzip and br above 1 KiB when asked, each with its own ETag; the bytes decode to the same body", async () => {
    const identity = await raw("/v1/openapi.json")
    expect(identity.headers.get("content-encoding")).toBeNull()
    expect(identity.bytes.length).toBeGreaterThan(1024)
    const gzip = await raw("/v1/openapi.json", { "accept-encoding": "gzip" })
    expect(gzip.headers.get("content-encoding")).toBe("gzip")
    expect(gzip.headers.get("vary")).toBe("Accept-Encoding")
    expect(gzip.bytes.length).toBeLessThan(identity.bytes.length / 3)
    expect(Buffer.from(gunzipSync(gzip.bytes)).equals(Buffer.from(identity.bytes))).toBe(true)
    const br = await raw("/v1/openapi.json", { "accept-encoding": "gzip, deflate, br" })
    expect(br.headers.get("content-encoding")).toBe("br")
    expect(Buffer.from(brotliDecompressSync(br.bytes)).equals(Buffer.from(identity.bytes))).toBe(true)
    const etags = [identity, gzip, br].map((reply) => reply.headers.get("etag"))
    expect(new Set(etags).size).toBe(3)
    expect(gzip.headers.get("etag")).toBe(etags[0]!.replace(/"$/, '-gzip"'))
  })

  test("a coding refused with q=0 is not used; gzip is the fallback when br is not accepted", async () => {
    const reply = await raw("/v1/openapi.json", { "accept-encoding": "br;q=0, gzip;q=0.5" })
    expect(reply.headers.get("content-encoding")).toBe("gzip")
    const none = await raw("/v1/openapi.json", { "accept-encoding": "identity" })
    expect(none.headers.get("content-encoding")).toBeNull()
  })

  test("a body of 1 KiB or less goes out uncompressed", async () => {
    const reply = await raw("/v1/stats", { "accept-encoding": "gzip, br" })
    expect(reply.status).toBe(200)
    expect(reply.bytes.length).toBeLessThanOrEqual(1024)
    expect(reply.headers.get("content-encoding")).toBeNull()
  })

  test("a compressed representation revalidates with its own ETag", async () => {
    const gzip = await raw("/v1/openapi.json", { "accept-encoding": "gzip" })
    const again = await raw("/v1/openapi.json", { "accept-encoding": "gzip", "if-none-match": gzip.headers.get("etag") ?? "" })
    expect(again.status).toBe(304)
    expect(again.bytes.length).toBe(0)
    expect(again.headers.get("etag")).toBe(gzip.headers.get("etag"))
  })
})

describe("the in-process response cache", () => {
  test("a public GET is a miss, then a hit served without the database", async () => {
    const path = "/v1/labels?limit=3" // this file's own key: no other test asks for it
    const first = await request(server.baseUrl, path)
    expect(first.headers.get("x-cache")).toBe("miss")
    await server.sql("INSERT INTO labels (id, name, slug) VALUES ($1, 'Cache Probe Records', 'cache-probe')", [CACHE_LABEL_ID])
    try {
      const second = await request(server.baseUrl, path)
      expect(second.headers.get("x-cache")).toBe("hit")
      expect(second.text).toBe(first.text) // the new label is not counted: the database was not asked
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"))
      const fresh = await request(server.baseUrl, "/v1/labels?limit=4")
      expect(fresh.headers.get("x-cache")).toBe("miss")
      expect(fresh.body.meta.total).toBe(first.body.meta.total + 1)
    } finally {
      await server.sql("DELETE FROM labels WHERE id = $1", [CACHE_LABEL_ID])
    }
  })

  test("the key is the request's meaning: unknown parameters, order and escapes hit the same entry", async () => {
    const first = await request(server.baseUrl, "/v1/songs?sort=title&limit=11")
    expect(first.headers.get("x-cache")).toBe("miss")
    for (const path of ["/v1/songs?limit=11&sort=title", "/v1/songs?sort=title&limit=11&x=1", "/v1/songs?%73ort=t%69tle&limit=1%31&&y"]) {
      const again = await request(server.baseUrl, path)
      expect([again.headers.get("x-cache"), again.text]).toEqual(["hit", first.text])
    }
    expect((await request(server.baseUrl, "/v1/songs?sort=title&limit=12")).headers.get("x-cache")).toBe("miss")
  })

  test("an entry's key counts in the byte budget", () => {
    const cache = ResponseCache.make({ ttlSeconds: 30, maxEntries: 100, maxBytes: 10_000 })
    const key = `/v1/search?q=${"a".repeat(600)}`
    cache.storeAt(key, makeRepresentation(new TextEncoder().encode("{}"), "application/json"), Date.now(), PUBLIC_FRESHNESS)
    expect(cache.stats()).toEqual({ entries: 1, bytes: key.length + 2 })
  })

  test("a 304 does no body work: nothing is compressed for it", () => {
    const representation = makeRepresentation(new TextEncoder().encode(JSON.stringify({ data: "x".repeat(4000) })), "application/json")
    const context = { kind: "public", freshness: PUBLIC_FRESHNESS, method: "GET", origin: undefined, bearerSent: false, decision: undefined, traceparent: "" } as const
    const settings = { staffOrigins: [], draining: () => false }
    const notModified = matchIfNoneMatch(`"${representation.hash}"`, representation) !== undefined
    const answer = publicAnswer(settings, context, representation, { acceptEncoding: "br, gzip", notModified, target: "/v1/search?q=x" }, "hit")
    expect([answer.status, answer.headers["etag"], answer.added]).toEqual([304, `"${representation.hash}-br"`, 0])
    expect(representation.coded).toEqual({})
  })

  test("a hit still answers 304 and compression from the kept bytes", async () => {
    const path = "/v1/songs?limit=37" // this file's own key: no other test asks for it
    const miss = await raw(path, { "accept-encoding": "gzip" })
    expect(miss.headers.get("x-cache")).toBe("miss")
    const hit = await raw(path, { "accept-encoding": "gzip" })
    expect(hit.headers.get("x-cache")).toBe("hit")
    expect(hit.headers.get("content-encoding")).toBe("gzip")
    expect(Buffer.from(hit.bytes).equals(Buffer.from(miss.bytes))).toBe(true)
    const notModified = await raw(path, { "if-none-match": miss.headers.get("etag") ?? "" })
    expect(notModified.status).toBe(304)
    expect(notModified.headers.get("x-cache")).toBe("hit")
  })

  test("errors are not cached", async () => {
    const first = await request(server.baseUrl, "/v1/nothing-cached")
    const second = await request(server.baseUrl, "/v1/nothing-cached")
    expect([first.status, second.status]).toEqual([404, 404])
    expect(second.headers.get("x-cache")).toBeNull()
  })

  test("with CACHE_TTL_SECONDS=0 (the shared test server) there is no cache at all", async () => {
    const shared = await sharedServer()
    const first = await request(shared.baseUrl, "/v1/stats")
    const second = await request(shared.baseUrl, "/v1/stats")
    expect(first.headers.get("x-cache")).toBeNull()
    expect(second.headers.get("x-cache")).toBeNull()
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"))
  })

  test("staff requests never read or fill it, and are compressed without validators", async () => {
    const headers = { authorization: `Bearer ${await hs256()}`, "accept-encoding": "gzip" }
    const first = await raw("/v1/admin/songs?limit=80", headers)
    await server.sql(
      "INSERT INTO songs (id, title, slug, released_at, published_at) VALUES ($1, 'Cache Probe', 'cache-probe', '2020-01-01', NULL)",
      [CACHE_SONG_ID]
    )
    try {
      const second = await raw("/v1/admin/songs?limit=80", headers)
      const totals = [first, second].map((reply) => JSON.parse(Buffer.from(gunzipSync(reply.bytes)).toString()).meta.total)
      expect(totals[1]).toBe(totals[0] + 1)
      for (const reply of [first, second]) {
        expect(reply.status).toBe(200)
        expect(reply.headers.get("x-cache")).toBeNull()
        expect(reply.headers.get("etag")).toBeNull()
        expect(reply.headers.get("cache-control")).toBe("no-store")
        expect(reply.headers.get("content-encoding")).toBe("gzip")
        expect(reply.headers.get("vary")).toBe("Authorization, Accept-Encoding")
      }
    } finally {
      await server.sql("DELETE FROM songs WHERE id = $1", [CACHE_SONG_ID])
    }
  })
})

describe("the change feed through the response cache", () => {
  /** Reads the feed from `since` to its end: the cursor a caught-up mirror polls with. */
  const caughtUp = async (since?: string): Promise<string> => {
    let cursor = since
    for (;;) {
      const reply = await request(server.baseUrl, `/v1/changes?limit=1000${cursor === undefined ? "" : `&since=${cursor}`}`)
      expect(reply.status).toBe(200)
      if (reply.body.meta.next_cursor === cursor) return cursor!
      cursor = reply.body.meta.next_cursor
    }
  }

  test("a caught-up mirror's poll, stored, shows a new change within 5 s; feed pages say max-age=2", async () => {
    const cursor = await caughtUp()
    const poll = `/v1/changes?limit=1000&since=${cursor}`
    const stored = await request(server.baseUrl, poll)
    expect(stored.headers.get("cache-control")).toBe("public, max-age=2, stale-if-error=86400")
    expect((await request(server.baseUrl, poll)).headers.get("x-cache")).toBe("hit")
    await server.sql("INSERT INTO labels (id, name, slug) VALUES ($1, 'Feed Probe Records', 'feed-probe')", [FEED_LABEL_ID])
    const written = Date.now()
    let seen: number | undefined
    while (seen === undefined && Date.now() - written < 10_000) {
      const reply = await request(server.baseUrl, poll)
      if ((reply.body.data as Array<{ type: string; id: number }>).some((entry) => entry.type === "labels" && entry.id === FEED_LABEL_ID)) {
        seen = Date.now()
      } else {
        await Bun.sleep(100)
      }
    }
    expect(seen === undefined ? "never" : seen - written).toBeLessThan(5_000)
  })

  test("a big feed page is not stored in the process; a small one is", async () => {
    const big = await raw("/v1/changes?limit=1000")
    expect(big.bytes.length).toBeGreaterThan(4096)
    expect((await raw("/v1/changes?limit=1000")).headers.get("x-cache")).toBe("miss")
    await raw("/v1/changes?limit=1")
    expect((await raw("/v1/changes?limit=1")).headers.get("x-cache")).toBe("hit")
  })
})
