import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { request } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { hs256 } from "./support/tokens.js"

const PUBLIC_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300"
// Rows in this file's id range (500-599), added and removed by the cache tests.
const CACHE_LABEL_ID = 501
const CACHE_SONG_ID = 502

let server: TestServer
beforeAll(async () => {
  server = await startEdgeServer({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "100000" })
}, 60_000)
afterAll(async () => {
  await server.sql("DELETE FROM labels WHERE id = $1", [CACHE_LABEL_ID])
  await server.sql("DELETE FROM songs WHERE id = $1", [CACHE_SONG_ID])
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
    const path = `/v1/stats?cache-test=${Date.now()}`
    const first = await request(server.baseUrl, path)
    expect(first.headers.get("x-cache")).toBe("miss")
    await server.sql("INSERT INTO labels (id, name, slug) VALUES ($1, 'Cache Probe Records', 'cache-probe')", [CACHE_LABEL_ID])
    try {
      const second = await request(server.baseUrl, path)
      expect(second.headers.get("x-cache")).toBe("hit")
      expect(second.text).toBe(first.text) // the new label is not counted: the database was not asked
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"))
      const fresh = await request(server.baseUrl, `${path}&other=1`)
      expect(fresh.headers.get("x-cache")).toBe("miss")
      expect(fresh.body.data.labels).toBe(first.body.data.labels + 1)
    } finally {
      await server.sql("DELETE FROM labels WHERE id = $1", [CACHE_LABEL_ID])
    }
  })

  test("a hit still answers 304 and compression from the kept bytes", async () => {
    const path = `/v1/openapi.json?hit-test=${Date.now()}`
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
