import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { proxyAccessLog, proxyUrl, replicaUrl } from "../../cluster/Cluster.js"
import { hs256 } from "../support/tokens.js"
import { cluster, get } from "./support.js"

const state = cluster()
const proxy = proxyUrl(state)
const behindProxy = state.replicas.filter((replica) => replica.reads !== "primary")

describe("the rate limit across replicas (Redis, TRUST_PROXY=2 behind nginx and HAProxy)", () => {
  test("one client gets 360 per 60 s in all, not per replica; another client keeps its own; X-Forwarded-For picks no bucket", async () => {
    const client = "127.0.3.1"
    const started = Date.now()
    const statuses: Array<number> = []
    let n = 0
    // 4 at a time, 540 in all: round robin over three replicas, each would allow 360 on its own
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (n < 540) {
        const answer = await get(proxy, `/v1/songs/999999${n++}`, { from: client })
        statuses.push(answer.status)
      }
    }))
    const seconds = (Date.now() - started) / 1000
    const allowed = statuses.filter((status) => status !== 429).length
    expect(statuses.filter((status) => status !== 429 && status !== 404)).toEqual([])
    // the bucket refills 6 a second while the burst runs
    expect(allowed).toBeGreaterThanOrEqual(360)
    expect(allowed).toBeLessThanOrEqual(360 + Math.ceil(seconds * 6) + 2)
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0)

    // the same client naming another address in X-Forwarded-For is still itself (nginx appends what it
    // saw, HAProxy what it saw: the replicas take the second from the right)
    const spoofed = await get(proxy, "/v1/songs/9999990", { from: client, headers: { "x-forwarded-for": "203.0.113.9" } })
    expect(spoofed.status).toBe(429)
    expect(JSON.parse(spoofed.body).error.code).toBe("rate_limited")
    // a client from another address has a bucket of its own
    const other = await get(proxy, "/v1/songs/9999991", { from: "127.0.3.2" })
    expect(other.status).toBe(404)
    expect(other.headers["ratelimit"]).toMatch(/^"ip";r=35\d;t=\d+$/)
  }, 60_000)
})

describe("the HTTP cache in front", () => {
  test("a public page is stored once and served across replicas with the ETag every replica gives it", async () => {
    const path = "/v1/songs?limit=7"
    const etags = await Promise.all(behindProxy.map(async (replica) => (await get(replicaUrl(replica), path)).headers.etag))
    expect(new Set(etags).size).toBe(1)
    const first = await get(proxy, path, { from: "127.0.4.1" })
    const second = await get(proxy, path, { from: "127.0.4.2" })
    expect(first.headers["x-proxy-cache"]).toBe("MISS")
    expect(second.headers["x-proxy-cache"]).toBe("HIT")
    expect(second.body).toBe(first.body)
    expect(first.headers.etag).toBe(etags[0])
    expect(second.headers.etag).toBe(etags[0])
    // a client's own If-None-Match is answered 304 by the cache
    const notModified = await get(proxy, path, { from: "127.0.4.3", headers: { "if-none-match": etags[0]! } })
    expect(notModified.status).toBe(304)
    expect(notModified.body).toBe("")
  })

  test("errors and staff answers are never stored (no-store); a staff answer never reaches another client", async () => {
    for (const path of ["/v1/songs/999999999", "/v1/songs/x", "/v1/search?q="]) {
      const first = await get(proxy, path, { from: "127.0.5.1" })
      const second = await get(proxy, path, { from: "127.0.5.2" })
      expect(first.status).toBeGreaterThanOrEqual(400)
      expect(first.headers["cache-control"]).toBe("no-store")
      expect(second.headers["x-proxy-cache"]).not.toBe("HIT")
    }
    const token = await hs256()
    const staffPath = "/v1/admin/songs/10"
    const staff = await get(proxy, staffPath, { from: "127.0.5.3", headers: { authorization: `Bearer ${token}` } })
    expect(staff.status).toBe(200)
    expect(staff.headers["cache-control"]).toBe("no-store")
    const again = await get(proxy, staffPath, { from: "127.0.5.3", headers: { authorization: `Bearer ${token}` } })
    expect(again.headers["x-proxy-cache"]).not.toBe("HIT")
    const anonymous = await get(proxy, staffPath, { from: "127.0.5.4" })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).not.toContain("CANARY")
  })

  test("Vary: Accept-Encoding keeps a gzip body from a client that did not ask for one", async () => {
    const path = "/v1/songs?limit=20"
    const zipped = await get(proxy, path, { from: "127.0.6.1", headers: { "accept-encoding": "gzip" } })
    expect(zipped.headers["content-encoding"]).toBe("gzip")
    const plain = await get(proxy, path, { from: "127.0.6.2" })
    expect(plain.headers["content-encoding"]).toBeUndefined()
    expect(JSON.parse(plain.body).data.length).toBe(20)
  })

  test("an expired entry is answered at once and revalidated in the background with If-None-Match: the replica answers 304 and the body is kept", async () => {
    const path = `/v1/genres?revalidate=${Date.now()}`
    const first = await get(proxy, path, { from: "127.0.7.1" })
    expect(first.headers["x-proxy-cache"]).toBe("MISS")
    expect(first.headers["cache-control"]).toMatch(/max-age=60/)
    // past max-age=60
    await Bun.sleep(61_500)
    const later = await get(proxy, path, { from: "127.0.7.2" })
    expect(later.status).toBe(200)
    expect(later.headers["x-proxy-cache"]).toBe("STALE")
    expect(later.body).toBe(first.body)
    // the refresh nginx sent meanwhile got a line of its own (the log is flushed every second)
    await Bun.sleep(1_500)
    const refreshes = readFileSync(proxyAccessLog(state), "utf8").split("\n").filter((line) => line.includes(`GET ${path} `))
    expect(refreshes.some((line) => / 200 REVALIDATED \S+ 304 /.test(line))).toBe(true)
    const after = await get(proxy, path, { from: "127.0.7.3" })
    expect(after.headers["x-proxy-cache"]).toBe("HIT")
    expect(after.body).toBe(first.body)
    expect(after.headers.etag).toBe(first.headers.etag)
  }, 90_000)
})

