import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { onPostgres } from "./support/database.js"
import { describeWhen, ON_POSTGRES_ONLY } from "./support/skips.js"
import { Clock, Duration, Effect, Fiber, Redacted } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { RedisClient } from "bun"
import { clientKey } from "../src/RateLimit/ClientAddress.js"
import { makeClientSlots } from "../src/RateLimit/ClientSlots.js"
import { makeMemoryStore, RateLimiter } from "../src/RateLimit/RateLimiter.js"
import { makeRedisStore } from "../src/RateLimit/RedisStore.js"
import { request } from "./support/http.js"
import { testWhen } from "./support/skips.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { routes } from "../src/Http/Routes.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { hs256, staffClaims } from "./support/tokens.js"
import { heavySearches } from "./support/fairness.js"
import { redisServerInstalled, startThrowawayRedis, type ThrowawayRedis } from "./support/redis.js"
import { prometheusText } from "../src/Metrics.js"

const POLICY = { capacity: 360, windowSeconds: 60 }

/** Runs with Effect's TestClock at 0 ms: refills happen only when a test moves the clock. */
const withTestClock = <A>(effect: Effect.Effect<A>) =>
  Effect.runPromise(effect.pipe(Effect.provide(TestClock.layer())) as Effect.Effect<A>)

/** A clock that never moves, cheaper per call than TestClock for a million calls. */
const frozenClock: Clock.Clock = {
  currentTimeMillisUnsafe: () => 0,
  currentTimeNanosUnsafe: () => 0n,
  currentTimeMillis: Effect.succeed(0),
  currentTimeNanos: Effect.succeed(0n),
  monotonicTimeNanosUnsafe: () => 0n,
  monotonicTimeNanos: Effect.succeed(0n),
  sleep: () => Effect.void
}

const memoryLimiter = (maxClients = 100_000) => RateLimiter.fromStore(POLICY, makeMemoryStore(POLICY, maxClients))

describe("the token bucket (service, frozen clock)", () => {
  test("360 requests pass, the 361st is refused; exact remaining, reset and retry values", async () => {
    const decisions = await withTestClock(Effect.gen(function*() {
      const limiter = memoryLimiter()
      const all = []
      for (let i = 0; i < 361; i++) all.push(yield* limiter.take("ip4:192.0.2.1"))
      return all
    }))
    expect(decisions[0]).toEqual({
      allowed: true, limit: 360, windowSeconds: 60, remaining: 359, secondsUntilToken: 1, resetEpochSeconds: 1
    })
    expect(decisions.slice(0, 360).every((d) => d.allowed)).toBe(true)
    expect(decisions.slice(0, 360).map((d) => d.remaining)).toEqual(Array.from({ length: 360 }, (_, i) => 359 - i))
    // empty at t=0: full again after 60 s, one token back after 1/6 s (rounded up to 1)
    expect(decisions[359]).toEqual({
      allowed: true, limit: 360, windowSeconds: 60, remaining: 0, secondsUntilToken: 1, resetEpochSeconds: 60
    })
    expect(decisions[360]).toEqual({
      allowed: false, limit: 360, windowSeconds: 60, remaining: 0, secondsUntilToken: 1, resetEpochSeconds: 60
    })
  })

  test("tokens come back at 6 per second, up to 360", async () => {
    const [afterOneSecond, afterTenSeconds, afterAMinute] = await withTestClock(Effect.gen(function*() {
      const limiter = memoryLimiter()
      for (let i = 0; i < 360; i++) yield* limiter.take("ip4:192.0.2.2")
      yield* TestClock.adjust(Duration.seconds(1))
      const one = yield* limiter.take("ip4:192.0.2.2") // 6 back, 1 taken
      yield* TestClock.adjust(Duration.seconds(10))
      const ten = yield* limiter.take("ip4:192.0.2.2") // 5 + 60 back, 1 taken
      yield* TestClock.adjust(Duration.minutes(5))
      const full = yield* limiter.take("ip4:192.0.2.2")
      return [one, ten, full] as const
    }))
    // at 1 s: 355 missing at 6 per second -> full at 60.17 s
    expect(afterOneSecond).toMatchObject({ allowed: true, remaining: 5, secondsUntilToken: 1, resetEpochSeconds: 61 })
    expect(afterTenSeconds).toMatchObject({ allowed: true, remaining: 64, resetEpochSeconds: 61 })
    expect(afterAMinute).toMatchObject({ allowed: true, remaining: 359 })
  })

  test("clients have separate buckets", async () => {
    const [other, same] = await withTestClock(Effect.gen(function*() {
      const limiter = memoryLimiter()
      for (let i = 0; i < 361; i++) yield* limiter.take("ip4:192.0.2.3")
      return [yield* limiter.take("ip4:192.0.2.4"), yield* limiter.take("ip4:192.0.2.3")] as const
    }))
    expect(other).toMatchObject({ allowed: true, remaining: 359 })
    expect(same).toMatchObject({ allowed: false, remaining: 0 })
  })

  test("a bucket that has refilled is dropped", async () => {
    const tracked = await withTestClock(Effect.gen(function*() {
      const limiter = memoryLimiter()
      yield* limiter.take("ip4:192.0.2.5")
      yield* limiter.take("ip4:192.0.2.6")
      const before = yield* limiter.trackedClients
      yield* TestClock.adjust(Duration.seconds(1)) // 1 token in 1/6 s: both are full again
      yield* limiter.take("ip4:192.0.2.7")
      return [before, yield* limiter.trackedClients]
    }))
    expect(tracked).toEqual([2, 1])
  })

  test("a flood of 1,000,000 distinct addresses keeps at most RATE_LIMIT_MAX_CLIENTS buckets", async () => {
    const maxClients = 100_000
    // frozen clock: no bucket refills (and is dropped) during the flood, so only the bound keeps memory flat
    const [tracked, heapGrowthMb, victimAfterFlood] = await Effect.runPromise(Effect.provideService(Effect.gen(function*() {
      const limiter = memoryLimiter(maxClients)
      for (let i = 0; i < 300; i++) yield* limiter.take("ip4:198.51.100.1")
      Bun.gc(true)
      const heapBefore = process.memoryUsage().heapUsed
      for (let i = 0; i < 1_000_000; i++) {
        yield* limiter.take(clientKey(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, undefined, 0))
      }
      const tracked = yield* limiter.trackedClients
      Bun.gc(true)
      const growth = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024
      return [tracked, growth, yield* limiter.take("ip4:198.51.100.1")] as const
    }), Clock.Clock, frozenClock))
    expect(tracked).toBe(maxClients)
    // 100,000 small buckets; without the bound a million would take several times this
    expect(heapGrowthMb).toBeLessThan(60)
    // the flood evicted the long-idle victim: it starts over, as a dropped bucket does
    expect(victimAfterFlood.remaining).toBe(359)
  }, 60_000)
})

describe("the client address", () => {
  test("without TRUST_PROXY, X-Forwarded-For is ignored", () => {
    expect(clientKey("203.0.113.9", "1.1.1.1", 0)).toBe("ip4:203.0.113.9")
    expect(clientKey("203.0.113.9", undefined, 0)).toBe("ip4:203.0.113.9")
  })

  test("with n trusted hops, the n-th address from the right is the client; entries further left are ignored", () => {
    expect(clientKey("10.0.0.1", "6.6.6.6, 198.51.100.7", 1)).toBe("ip4:198.51.100.7")
    expect(clientKey("10.0.0.1", "6.6.6.6, 198.51.100.7, 10.0.0.2", 2)).toBe("ip4:198.51.100.7")
    expect(clientKey("10.0.0.1", "198.51.100.7", 3)).toBe("ip4:198.51.100.7")
  })

  test("a header that is no address falls back to the socket", () => {
    expect(clientKey("10.0.0.1", "not-an-ip", 1)).toBe("ip4:10.0.0.1")
    expect(clientKey(undefined, undefined, 0)).toBe("unknown")
  })

  test("IPv6 clients share a bucket per /64; IPv4-mapped addresses are IPv4", () => {
    expect(clientKey("2001:db8:1:2:aaaa::1", undefined, 0)).toBe("ip6:2001:db8:1:2::/64")
    expect(clientKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff", undefined, 0)).toBe("ip6:2001:db8:1:2::/64")
    expect(clientKey("2001:db8:1:3::1", undefined, 0)).toBe("ip6:2001:db8:1:3::/64")
    expect(clientKey("::ffff:192.0.2.33", undefined, 0)).toBe("ip4:192.0.2.33")
    expect(clientKey("[2001:db8::1]", undefined, 0)).toBe("ip6:2001:db8:0:0::/64")
  })
})

describe("the rate limit over HTTP (360 per 60 s)", () => {
  let server: TestServer
  // TRUST_PROXY=1: the test is the proxy, so each test can be its own client via X-Forwarded-For.
  beforeAll(async () => {
    server = await startEdgeServer({ ...REAL_EDGE_ENV, TRUST_PROXY: "1" })
  }, 60_000)
  afterAll(() => server.stop())

  const from = (client: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": client, ...headers } })

  test("a burst past 360: exact headers on the first response and on the refusal", async () => {
    const client = "198.51.100.10"
    const first = await request(server.baseUrl, "/v1", from(client))
    const epoch = Math.floor(Date.now() / 1000)
    expect(first.status).toBe(200)
    expect(first.headers.get("ratelimit-policy")).toBe(`"ip";q=360;w=60`)
    expect(first.headers.get("ratelimit")).toBe(`"ip";r=359;t=1`)
    expect(first.headers.get("x-ratelimit-limit")).toBe("360")
    expect(first.headers.get("x-ratelimit-remaining")).toBe("359")
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(epoch)
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeLessThanOrEqual(epoch + 2)
    expect(first.headers.get("retry-after")).toBeNull()

    const started = Date.now()
    let served = 1
    let refused: Awaited<ReturnType<typeof request>> | undefined
    let previousRemaining = 359
    while (refused === undefined && served < 1000) {
      const reply = await request(server.baseUrl, served % 2 === 0 ? "/v1" : "/v1/no-such-path", from(client))
      const remaining = Number(reply.headers.get("x-ratelimit-remaining"))
      expect(reply.headers.get("ratelimit")).toBe(`"ip";r=${remaining};t=1`)
      // one token per request, a few back per second at most
      expect(remaining).toBeLessThanOrEqual(previousRemaining + 6)
      previousRemaining = remaining
      if (reply.status === 429) refused = reply
      else served++
    }
    const elapsedSeconds = (Date.now() - started) / 1000
    // 360 in the bucket, 6 per second refilled while the burst ran (404s count too)
    expect(served).toBeGreaterThanOrEqual(360)
    expect(served).toBeLessThanOrEqual(360 + Math.ceil(elapsedSeconds * 6) + 1)
    expect(refused!.status).toBe(429)
    expect(refused!.body).toEqual({
      error: { code: "rate_limited", message: "Too many requests: 360 per 60 seconds per client; retry in 1 second." }
    })
    expect(refused!.headers.get("retry-after")).toBe("1")
    expect(refused!.headers.get("ratelimit")).toBe(`"ip";r=0;t=1`)
    expect(refused!.headers.get("ratelimit-policy")).toBe(`"ip";q=360;w=60`)
    expect(refused!.headers.get("x-ratelimit-limit")).toBe("360")
    expect(refused!.headers.get("x-ratelimit-remaining")).toBe("0")
    const now = Math.floor(Date.now() / 1000)
    expect(Number(refused!.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(now + 59)
    expect(Number(refused!.headers.get("x-ratelimit-reset"))).toBeLessThanOrEqual(now + 61)
    expect(refused!.headers.get("cache-control")).toBe("no-store")
    expect(refused!.headers.get("content-type")).toBe("application/json; charset=utf-8")
    expect(refused!.headers.get("access-control-allow-origin")).toBe("*")

    // health stays exempt while the client is limited; a token is back within a second
    const health = await request(server.baseUrl, "/v1/health", from(client))
    expect(health.status).toBe(200)
    expect(health.headers.get("ratelimit")).toBeNull()
    expect(health.headers.get("x-ratelimit-remaining")).toBeNull()
    await Bun.sleep(1100)
    const again = await request(server.baseUrl, "/v1", from(client))
    expect(again.status).toBe(200)
  }, 60_000)

  test("a spoofed X-Forwarded-For entry does not give a fresh bucket", async () => {
    const client = "198.51.100.11"
    const first = await request(server.baseUrl, "/v1", from(client))
    const spoofed = await request(server.baseUrl, "/v1", from(`6.6.6.${Math.floor(Math.random() * 250)}, ${client}`))
    expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(359)
    expect(Number(spoofed.headers.get("x-ratelimit-remaining"))).toBe(358)
  })

  test("staff requests: a bad token is limited, a valid token bypasses the limit", async () => {
    const client = "198.51.100.12"
    for (let i = 0; i < 400; i++) {
      if ((await request(server.baseUrl, "/v1/no-such-path", from(client))).status === 429) break
    }
    const bad = await request(server.baseUrl, "/v1/admin/stats", from(client, { authorization: "Bearer not.a.token" }))
    expect(bad.status).toBe(429)
    expect(bad.body.error.code).toBe("rate_limited")
    const none = await request(server.baseUrl, "/v1/admin/stats", from(client))
    expect(none.status).toBe(429)
    const good = await request(
      server.baseUrl,
      "/v1/admin/stats",
      from(client, { authorization: `Bearer ${await hs256(staffClaims())}` })
    )
    expect(good.status).not.toBe(429)
    expect(good.headers.get("ratelimit")).toBeNull()
    expect(good.headers.get("x-ratelimit-limit")).toBeNull()
  }, 30_000)
})

describe("without TRUST_PROXY (the shared server)", () => {
  test("X-Forwarded-For is ignored: every request draws from the socket's bucket", async () => {
    const shared = await sharedServer()
    const replies = []
    for (const forwarded of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) {
      replies.push(await request(shared.baseUrl, "/v1", { headers: { "x-forwarded-for": forwarded } }))
    }
    const remaining = replies.map((reply) => Number(reply.headers.get("x-ratelimit-remaining")))
    // other requests may run in between, never a fresh bucket
    expect(remaining[1]!).toBeLessThan(remaining[0]!)
    expect(remaining[2]!).toBeLessThan(remaining[1]!)
  })
})

/** Whether the Redis the tests are pointed at answers (RATE_LIMIT_REDIS_TEST_URL, else the local one). */
const redisTestUrl = process.env.RATE_LIMIT_REDIS_TEST_URL ?? "redis://127.0.0.1:6379"
const redisAnswers = await (async () => {
  const probe = new RedisClient(redisTestUrl, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 1000 })
  const answers = await probe.connect().then(() => probe.ping()).then(() => true, () => false)
  probe.close()
  return answers
})()

describe("the Redis store (shared by replicas)", () => {
  const url = redisTestUrl
  const policy = { capacity: 5, windowSeconds: 3600 }
  const prefix = `test-${process.pid}-${Date.now()}`

  const runScoped = <A>(effect: Effect.Effect<A, never, import("effect").Scope.Scope>) =>
    Effect.runPromise(Effect.scoped(effect))

  testWhen(redisAnswers, `no Redis at ${redisTestUrl} (RATE_LIMIT_REDIS_TEST_URL)`)("two replicas draw from one bucket, atomically; the key expires once it would be full", async () => {
    const result = await runScoped(Effect.gen(function*() {
      const fallback = makeMemoryStore(policy, 10)
      const replicaA = RateLimiter.fromStore(policy, yield* makeRedisStore(Redacted.make(url), policy, fallback, 10))
      const replicaB = RateLimiter.fromStore(policy, yield* makeRedisStore(Redacted.make(url), policy, fallback, 10))
      const key = `${prefix}:ip4:192.0.2.50`
      const decisions = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? replicaA : replicaB).take(key)),
        { concurrency: "unbounded" }
      )
      return { decisions, fallbackTracked: yield* fallback.trackedClients }
    }))
    const allowed = result.decisions.filter((d) => d.allowed)
    expect(allowed.length).toBe(5)
    expect(result.decisions.filter((d) => !d.allowed)).toEqual([
      expect.objectContaining({ allowed: false, remaining: 0, limit: 5, windowSeconds: 3600, secondsUntilToken: 720 })
    ])
    expect(allowed.map((d) => d.remaining).sort()).toEqual([0, 1, 2, 3, 4])
    expect(result.fallbackTracked).toBe(0) // Redis answered every time
    const redis = new RedisClient(url)
    const ttl = await redis.pttl(`catalogue:ratelimit:${prefix}:ip4:192.0.2.50`)
    await redis.del(`catalogue:ratelimit:${prefix}:ip4:192.0.2.50`)
    redis.close()
    // empty bucket of 5 per hour: full again in an hour
    expect(ttl).toBeGreaterThan(3_590_000)
    expect(ttl).toBeLessThanOrEqual(3_600_000)
  })

  test("while Redis does not answer, the process limits in memory", async () => {
    const decisions = await runScoped(Effect.gen(function*() {
      const fallback = makeMemoryStore(policy, 10)
      const limiter = RateLimiter.fromStore(policy, yield* makeRedisStore(Redacted.make("redis://127.0.0.1:1"), policy, fallback, 10))
      const all = []
      for (let i = 0; i < 6; i++) all.push(yield* limiter.take("ip4:192.0.2.60"))
      return all
    }))
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false])
  }, 30_000)
})

describe("a 304 is free only when the response cache answered it", () => {
  const remaining = (reply: { headers: Headers }) => reply.headers.get("x-ratelimit-remaining")
  let cached: TestServer
  let uncached: TestServer
  beforeAll(async () => {
    cached = await startEdgeServer({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "3" })
    uncached = await startEdgeServer({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "3", CACHE_TTL_SECONDS: "0" })
  }, 60_000)
  afterAll(async () => {
    await cached.stop()
    await uncached.stop()
  })

  test("304s from the response cache leave the bucket as it was, and still come once it is empty", async () => {
    const first = await request(cached.baseUrl, "/v1/songs/1")
    expect([first.status, remaining(first)]).toEqual([200, "2"])
    const etag = first.headers.get("etag") ?? ""
    for (let i = 0; i < 5; i++) {
      const again = await request(cached.baseUrl, "/v1/songs/1", { headers: { "if-none-match": etag } })
      expect([again.status, remaining(again)]).toEqual([304, "2"])
    }
    expect((await request(cached.baseUrl, "/v1/songs/2")).status).toBe(200)
    expect((await request(cached.baseUrl, "/v1/songs/3")).status).toBe(200)
    expect((await request(cached.baseUrl, "/v1/songs/4")).status).toBe(429)
    // past its limit: the cache's 304 still comes; anything needing the database does not
    const revalidated = await request(cached.baseUrl, "/v1/songs/1", { headers: { "if-none-match": etag } })
    expect([revalidated.status, remaining(revalidated)]).toEqual([304, "0"])
    expect((await request(cached.baseUrl, "/v1/songs/1", { headers: { "if-none-match": `"other"` } })).status).toBe(429)
    expect((await request(cached.baseUrl, "/v1/songs/2", { headers: { "if-none-match": etag } })).status).toBe(429)
    // `*` matches without the client holding anything: never free, so past the limit it is refused
    expect((await request(cached.baseUrl, "/v1/songs/1", { headers: { "if-none-match": "*" } })).status).toBe(429)
  })

  test("a 304 the handler made (cache off) costs a token like a 200", async () => {
    const first = await request(uncached.baseUrl, "/v1/genres")
    expect([first.status, remaining(first)]).toEqual([200, "2"])
    const etag = first.headers.get("etag") ?? ""
    const again = await request(uncached.baseUrl, "/v1/genres", { headers: { "if-none-match": etag } })
    expect([again.status, remaining(again)]).toEqual([304, "1"])
    const star = await request(uncached.baseUrl, "/v1/genres", { headers: { "if-none-match": "*" } })
    expect([star.status, remaining(star)]).toEqual([304, "0"])
    expect((await request(uncached.baseUrl, "/v1/genres", { headers: { "if-none-match": etag } })).status).toBe(429)
  })
})

describe("If-None-Match: * and cache-busting parameters get no work for free", () => {
  const remaining = (reply: { headers: Headers }) => Number(reply.headers.get("x-ratelimit-remaining"))
  let server: TestServer
  // TRUST_PROXY=1: each test is its own client through X-Forwarded-For
  beforeAll(async () => {
    server = await startEdgeServer({ ...REAL_EDGE_ENV, TRUST_PROXY: "1", RATE_LIMIT_CAPACITY: "40" })
  }, 60_000)
  afterAll(() => server.stop())
  const from = (client: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": client, ...headers } })

  test("`*` answers 304 on every path that has a representation, and every one costs a token", async () => {
    const client = "198.51.100.70"
    let before = remaining(await request(server.baseUrl, "/v1/songs/1", from(client)))
    for (const path of ["/v1/songs/1", "/v1/songs?limit=80&sort=popular", "/docs", "/v1/openapi.json", "/v1/genres"]) {
      const reply = await request(server.baseUrl, path, from(client, { "if-none-match": "*" }))
      expect(reply.status).toBe(304)
      expect(reply.text).toBe("")
      expect(reply.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{32}(-br|-gzip)?"$/)
      expect(remaining(reply)).toBe(before - 1)
      before -= 1
    }
    // no representation: the condition is false and the 404 comes as it would
    expect((await request(server.baseUrl, "/v1/songs/999999", from(client, { "if-none-match": "*" }))).status).toBe(404)
  })

  test("unknown parameters, their order and escapes make no cache miss, and every request pays", async () => {
    const client = "198.51.100.71"
    const first = await request(server.baseUrl, "/v1/songs?limit=80&sort=popular", from(client))
    expect(first.status).toBe(200)
    const spellings = [
      "/v1/songs?limit=80&sort=popular&bust=1",
      "/v1/songs?bust=2&sort=popular&limit=80",
      "/v1/songs?%6Cimit=80&sort=%70opular",
      "/v1/songs?limit=80&sort=popular&limit2=1&",
      "/v1/songs?sort=popular&limit=%38%30&bust"
    ]
    let expected = remaining(first)
    for (const path of spellings) {
      const reply = await request(server.baseUrl, path, from(client, { "if-none-match": "*" }))
      expected -= 1
      expect([reply.status, reply.headers.get("x-cache"), remaining(reply)]).toEqual([304, "hit", expected])
      const plain = await request(server.baseUrl, path, from(client))
      expected -= 1
      expect([plain.status, plain.headers.get("x-cache"), plain.text]).toEqual([200, "hit", first.text])
    }
    // a known parameter's other value is another request
    expect((await request(server.baseUrl, "/v1/songs?limit=79&sort=popular", from(client))).headers.get("x-cache")).toBe("miss")
    // a repeated known parameter is still refused, never answered from the single one's entry
    expect((await request(server.baseUrl, "/v1/songs?limit=80&sort=popular&limit=80", from(client))).status).toBe(400)
  })

  test("a flood of cache-busting variants of every public endpoint leaves other clients' hit rate as it was and the flooder limited", async () => {
    const SAMPLE: Record<string, string> = { songId: "1", albumId: "1", listId: "1", artistId: "1", slug: "pop", labelId: "1", username: "aishah_fan" }
    const QUERY: Record<string, string> = { "/v1/search": "?q=cinta", "/v1/artists/namesake-hints": "?ids=1,2" }
    const paths = routes
      // a snapshot's files are streamed from disk, never kept in the process (test/snapshots.test.ts),
      // and this server writes no snapshot
      .filter((route) => route.kind === "public" && !route.template.startsWith("/v1/snapshots"))
      .map((route) => route.template.replace(/:(\w+)/g, (_, name: string) => SAMPLE[name] ?? "1") + (QUERY[route.template] ?? ""))
    const hitsOf = async (client: string) => {
      let hits = 0
      for (const path of paths) {
        const reply = await request(server.baseUrl, path, from(client))
        expect([path, reply.status]).toEqual([path, 200])
        if (reply.headers.get("x-cache") === "hit") hits++
      }
      return hits
    }
    await hitsOf("198.51.100.72") // warm
    expect(await hitsOf("198.51.100.73")).toBe(paths.length)
    const statuses: Array<number> = []
    for (const [i, path] of [...paths, ...paths].entries()) {
      const bust = `${path}${path.includes("?") ? "&" : "?"}bust=${i}&_=${i * 7}`
      const reply = await request(server.baseUrl, bust, from("198.51.100.74", { "if-none-match": i % 2 === 0 ? "*" : `"x${i}"` }))
      statuses.push(reply.status)
    }
    expect(statuses.filter((status) => status === 429).length).toBe(paths.length * 2 - 40)
    expect(await hitsOf("198.51.100.75")).toBe(paths.length)
  })
})

describe("a client's requests in flight (the line of src/RateLimit/ClientSlots.ts)", () => {
  /** A request that runs until `open` is called, recording when it starts. */
  const gate = (name: string, started: Array<string>) => {
    let open = () => {}
    const effect = Effect.callback<string>((resume) => {
      started.push(name)
      open = () => resume(Effect.succeed(name))
    })
    return { effect, open: () => open() }
  }
  const REFUSED = Effect.succeed("refused")

  test("two run, the next wait in arrival order, past the line refused; a slot is handed on however a request ends", async () => {
    const slots = makeClientSlots(2, 2)
    const started: Array<string> = []
    const [a, b, c, d] = ["a", "b", "c", "d"].map((name) => gate(name, started))
    const outcomes = await Effect.runPromise(Effect.gen(function*() {
      const fa = yield* Effect.forkChild(slots.withSlot("k", a!.effect, REFUSED))
      const fb = yield* Effect.forkChild(slots.withSlot("k", Effect.flatMap(b!.effect, () => Effect.fail("boom")), REFUSED))
      const fc = yield* Effect.forkChild(slots.withSlot("k", c!.effect, REFUSED))
      const fd = yield* Effect.forkChild(slots.withSlot("k", d!.effect, REFUSED))
      yield* Effect.yieldNow
      const refused = yield* slots.withSlot("k", Effect.succeed("e"), REFUSED)
      const otherClient = yield* slots.withSlot("other", Effect.succeed("other"), REFUSED)
      const runningFirst = [...started]
      b!.open() // fails: its slot goes to c, the first waiting
      yield* Effect.yieldNow
      const afterFailure = [...started]
      yield* Fiber.interrupt(fa) // hangs up while running: its slot goes to d
      yield* Effect.yieldNow
      const afterInterrupt = [...started]
      c!.open()
      d!.open()
      return {
        runningFirst, refused, otherClient, afterFailure, afterInterrupt,
        b: yield* Effect.exit(Fiber.join(fb)), c: yield* Fiber.join(fc), d: yield* Fiber.join(fd)
      }
    }))
    expect(outcomes.runningFirst).toEqual(["a", "b"])
    expect(outcomes.refused).toBe("refused")
    expect(outcomes.otherClient).toBe("other")
    expect(outcomes.afterFailure).toEqual(["a", "b", "c"])
    expect(outcomes.afterInterrupt).toEqual(["a", "b", "c", "d"])
    expect(outcomes.b._tag).toBe("Failure")
    expect([outcomes.c, outcomes.d]).toEqual(["c", "d"])
    // everything ended: the client's line is empty again, two run at once
    const again = await Effect.runPromise(Effect.all([1, 2, 3].map((i) => slots.withSlot("k", Effect.succeed(i), Effect.succeed(0)))))
    expect(again).toEqual([1, 2, 3])
  })

  test("a request that stops waiting (its client hung up) leaves the line", async () => {
    const slots = makeClientSlots(1, 1)
    const started: Array<string> = []
    const [a, b] = ["a", "b"].map((name) => gate(name, started))
    const result = await Effect.runPromise(Effect.gen(function*() {
      const fa = yield* Effect.forkChild(slots.withSlot("k", a!.effect, REFUSED))
      const fb = yield* Effect.forkChild(slots.withSlot("k", b!.effect, REFUSED))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fb) // waiting: leaves; the line has room again
      const waiting = yield* Effect.forkChild(slots.withSlot("k", Effect.succeed("c"), REFUSED))
      yield* Effect.yieldNow
      a!.open()
      return { a: yield* Fiber.join(fa), c: yield* Fiber.join(waiting), started }
    }))
    expect(result).toEqual({ a: "a", c: "c", started: ["a"] })
  })
})

// Buckets in memory (decided at the front door) and in Redis (decided in the pipeline): the line is the same.
const BUCKET_STORES = { memory: {}, redis: { RATE_LIMIT_REDIS_URL: process.env.RATE_LIMIT_REDIS_TEST_URL ?? "redis://127.0.0.1:6379" } }
for (const [store, storeEnv] of Object.entries(BUCKET_STORES)) describe(`a client's requests in flight over HTTP (1 running, 1 waiting; buckets in ${store})`, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startEdgeServer({
      ...REAL_EDGE_ENV,
      ...storeEnv,
      TRUST_PROXY: "1",
      CACHE_TTL_SECONDS: "0",
      RATE_LIMIT_MAX_IN_FLIGHT: "1",
      RATE_LIMIT_MAX_QUEUED: "1"
    })
  }, 60_000)
  afterAll(() => server.stop())

  const from = (client: string, init: RequestInit = {}) => ({ ...init, headers: { "x-forwarded-for": client } })

  // on the embedded database a query holds the process's one thread: the four requests never overlap
  testWhen(onPostgres, ON_POSTGRES_ONLY)("past the running and the waiting one: 429 rate_limited with Retry-After; another client is not held up", async () => {
    const client = "198.51.100.80"
    const replies = Promise.all(heavySearches.slice(0, 4).map((path) => request(server.baseUrl, path, from(client))))
    const other = await request(server.baseUrl, "/v1/songs/1", from("198.51.100.81"))
    const statuses = (await replies).map((reply) => reply.status)
    expect(other.status).toBe(200)
    expect(statuses.toSorted()).toEqual([200, 200, 429, 429])
    const refused = (await replies).find((reply) => reply.status === 429)!
    expect(refused.body).toEqual({
      error: { code: "rate_limited", message: "Too many requests at once: 1 running and 1 waiting per client; retry in 1 second." }
    })
    expect(refused.headers.get("retry-after")).toBe("1")
    expect(refused.headers.get("cache-control")).toBe("no-store")
    // it was counted: its token is taken, as the fields say
    expect(Number(refused.headers.get("x-ratelimit-remaining"))).toBeLessThan(359)
    expect(refused.headers.get("ratelimit-policy")).toBe(`"ip";q=360;w=60`)
    // health checks never wait for a slot
    const busy = request(server.baseUrl, heavySearches[0]!, from(client))
    expect((await request(server.baseUrl, "/v1/health", from(client))).status).toBe(200)
    expect((await busy).status).toBe(200)
  })

  test("the slot is released after a 404, a 400 and a client that hangs up", async () => {
    const client = "198.51.100.82"
    expect((await request(server.baseUrl, "/v1/songs/999999", from(client))).status).toBe(404)
    expect((await request(server.baseUrl, "/v1/songs?limit=0", from(client))).status).toBe(400)
    for (let i = 0; i < 3; i++) {
      const abort = new AbortController()
      const hungUp = request(server.baseUrl, heavySearches[i]!, from(client, { signal: abort.signal })).catch(() => undefined)
      await Bun.sleep(10)
      abort.abort()
      await hungUp
    }
    // the hung-up searches' slots come back once their handlers are interrupted
    const statuses: Array<number> = []
    for (let i = 0; i < 50 && statuses.at(-1) !== 200; i++) {
      statuses.push((await request(server.baseUrl, "/v1/songs/1", from(client))).status)
      if (statuses.at(-1) !== 200) await Bun.sleep(20)
    }
    expect(statuses.at(-1)).toBe(200)
    for (let i = 0; i < 5; i++) expect((await request(server.baseUrl, "/v1/songs/1", from(client))).status).toBe(200)
  })
})

/**
 * Buckets in Redis are spent in slices at the front door (src/RateLimit/Slices.ts). A Redis of
 * the tests' own, so that its command counts are these requests' alone.
 */
describeWhen(redisServerInstalled, "redis-server is not installed")("buckets in Redis, spent at the front door (a throw-away Redis)", () => {
  let redis: ThrowawayRedis
  let server: TestServer
  const CAPACITY = 320 // a slice of 16 at most
  beforeAll(async () => {
    redis = await startThrowawayRedis()
    server = await startEdgeServer({
      ...REAL_EDGE_ENV,
      TRUST_PROXY: "1",
      RATE_LIMIT_CAPACITY: String(CAPACITY),
      RATE_LIMIT_WINDOW_SECONDS: "3600",
      RATE_LIMIT_REDIS_URL: redis.url
    })
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    await redis?.close()
  })
  const from = (client: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": client, ...headers } })
  const remaining = (reply: { headers: Headers }) => Number(reply.headers.get("x-ratelimit-remaining"))

  test("a client's cache hits cost Redis one command per several requests; the headers fall by one per request", async () => {
    await request(server.baseUrl, "/v1/songs/1", from("198.51.100.90")) // stored
    const client = "198.51.100.91"
    const before = await redis.scriptCalls()
    const replies = []
    for (let i = 0; i < 100; i++) replies.push(await request(server.baseUrl, "/v1/songs/1", from(client)))
    const calls = (await redis.scriptCalls()) - before
    expect(replies.map((reply) => [reply.status, reply.headers.get("x-cache")])).toEqual(replies.map(() => [200, "hit"]))
    expect(replies.map(remaining)).toEqual(Array.from({ length: 100 }, (_, i) => CAPACITY - 1 - i))
    // slices of 1, 2, 4, 8, then 16 topped up at half: about ten commands, where one a request would be 100
    expect(calls).toBeLessThanOrEqual(20)
    console.log(`100 cache hits with buckets in Redis: ${calls} Redis commands`)
  })

  test("the limit holds: exactly the capacity allowed, then 429s answered at the door without asking Redis each time", async () => {
    const client = "198.51.100.92"
    const statuses: Array<number> = []
    for (let i = 0; i < CAPACITY; i++) statuses.push((await request(server.baseUrl, "/v1/songs/1", from(client))).status)
    expect(statuses.filter((status) => status === 200).length).toBe(CAPACITY)
    const before = await redis.scriptCalls()
    const started = Date.now()
    const refused = []
    for (let i = 0; i < 100; i++) refused.push(await request(server.baseUrl, "/v1/songs/1", from(client)))
    const calls = (await redis.scriptCalls()) - before
    const seconds = (Date.now() - started) / 1000
    expect(refused.map((reply) => reply.status)).toEqual(refused.map(() => 429))
    // a refusal is remembered until a token is due (11 s here), a second at most
    expect(calls).toBeLessThanOrEqual(Math.ceil(seconds) + 1)
    // one token every 11.25 s: what the headers say is the bucket as Redis last told it, refilled since
    const last = refused.at(-1)!
    const wait = Number(last.headers.get("retry-after"))
    expect(wait).toBeGreaterThanOrEqual(10)
    expect(wait).toBeLessThanOrEqual(12)
    expect([remaining(last), last.headers.get("ratelimit")]).toEqual([0, `"ip";r=0;t=${wait}`])
    expect(last.body).toEqual({
      error: { code: "rate_limited", message: `Too many requests: ${CAPACITY} per 3600 seconds per client; retry in ${wait} seconds.` }
    })
    console.log(`100 refusals with buckets in Redis: ${calls} Redis commands`)
  })

  test("sixteen at once: still exactly the capacity", async () => {
    const client = "198.51.100.96"
    let sent = 0
    const statuses: Array<number> = []
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (sent++ < CAPACITY + 80) statuses.push((await request(server.baseUrl, "/v1/songs/1", from(client))).status)
    }))
    expect(statuses.filter((status) => status === 200).length).toBe(CAPACITY)
    expect(statuses.filter((status) => status === 429).length).toBe(80)
  })

  test("a slice held by one process keeps the bucket from refilling over it: no more than one bucket gives", async () => {
    // 320 per 10 s: 32 a second, slices of 16 at most
    const policy = { capacity: 320, windowSeconds: 10 }
    const key = "ip4:198.51.100.97"
    const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const store = () => Effect.map(makeRedisStore(Redacted.make(redis.url), policy, makeMemoryStore(policy, 10), 10), (s) => RateLimiter.fromStore(policy, s))
      const [a, b] = [yield* store(), yield* store()]
      const pause = (ms: number) => Effect.promise(() => Bun.sleep(ms))
      // process A: a client whose slices grow to 16, then spending 10 a second (less than the refill)
      // for long enough that its bucket is full but for what A holds
      for (let i = 0; i < 40; i++) {
        yield* a.take(key)
        yield* pause(5)
      }
      for (let i = 0; i < 25; i++) {
        yield* a.take(key)
        yield* pause(100)
      }
      // from here on, one bucket gives at most its capacity and the refill since: A's slice included
      const started = performance.now()
      let allowed = 0
      while ((yield* b.take(key)).allowed) allowed++
      const onB = allowed
      while ((yield* a.take(key)).allowed) allowed++
      return { allowed, onB, ms: performance.now() - started }
    })))
    const bound = policy.capacity + Math.floor((32 * result.ms) / 1000)
    console.log(`one bucket, full but for A's slice: ${result.onB} on B, then ${result.allowed - result.onB} on A in ${result.ms.toFixed(0)} ms (bound ${bound})`)
    expect(result.allowed).toBeLessThanOrEqual(bound)
    expect(result.allowed).toBeGreaterThanOrEqual(policy.capacity - 16)
  })

  test("a 304 the response cache answered gives its token back to the slice", async () => {
    const client = "198.51.100.93"
    const first = await request(server.baseUrl, "/v1/songs/1", from(client))
    const etag = first.headers.get("etag") ?? ""
    const statuses = []
    for (let i = 0; i < 20; i++) {
      const again = await request(server.baseUrl, "/v1/songs/1", from(client, { "if-none-match": etag }))
      statuses.push([again.status, remaining(again)])
    }
    expect(statuses).toEqual(statuses.map(() => [304, remaining(first)]))
    expect(remaining(await request(server.baseUrl, "/v1/songs/1", from(client)))).toBe(remaining(first) - 1)
  })

  test("while Redis is away or frozen the process limits in memory, and the gauge says so; back to Redis when it answers", async () => {
    const gauge = () => /^catalogue_rate_limit_redis_fallback (\d)/m.exec(prometheusText())?.[1]
    const allowedOf = async (client: string, count: number) => {
      let allowed = 0
      for (let i = 0; i < count; i++) if ((await request(server.baseUrl, "/v1/songs/1", from(client))).status === 200) allowed++
      return allowed
    }
    await redis.stop()
    try {
      // a bucket of its own in memory: the capacity, then refused
      expect(await allowedOf("198.51.100.94", CAPACITY + 30)).toBe(CAPACITY)
      expect(gauge()).toBe("1")
    } finally {
      await redis.start()
    }
    // reconnected: Redis decides again (a fresh Redis: a fresh bucket for the client memory refused)
    let back = false
    for (let i = 0; i < 100 && !back; i++) {
      back = (await request(server.baseUrl, "/v1/songs/1", from("198.51.100.94"))).status === 200 && gauge() === "0"
      if (!back) await Bun.sleep(100)
    }
    expect(back).toBe(true)
    expect(await redis.scriptCalls()).toBeGreaterThan(0)

    redis.freeze()
    try {
      const started = Date.now()
      expect(await allowedOf("198.51.100.95", CAPACITY + 30)).toBe(CAPACITY)
      // a command waits for its 250 ms timeout now and then (once a second), not every request
      const elapsed = Date.now() - started
      expect(elapsed).toBeGreaterThanOrEqual(250)
      expect(elapsed).toBeLessThan(10_000)
      expect(gauge()).toBe("1")
    } finally {
      redis.thaw()
    }
  }, 60_000)
})
