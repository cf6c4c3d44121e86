import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { testWhen } from "./support/skips.js"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TokenVerifier } from "../src/Auth/TokenVerifier.js"
import { PUBLIC_FRESHNESS } from "../src/Cache/Freshness.js"
import { makeRepresentation } from "../src/Cache/Representation.js"
import { ResponseCache } from "../src/Cache/ResponseCache.js"
import { AppConfig } from "../src/Config.js"
import { pathAndQuery } from "../src/Http/Url.js"
import { Edge } from "../src/Http/Edge.js"
import { type FrontDoor, FrontDoorEnabled, makeFrontDoor } from "../src/Http/FrontDoor.js"
import { ServerSpans } from "../src/Http/ServerSpans.js"
import { LoggingLive } from "../src/Logging.js"
import { RateLimiter } from "../src/RateLimit/RateLimiter.js"
import { InFlightRequests } from "../src/Shutdown.js"
import * as Telemetry from "../src/Telemetry.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { redisServerInstalled, startThrowawayRedis } from "./support/redis.js"
import type { TestServer } from "./support/server.js"
import { TEST_ENV } from "./support/server.js"

/** The front door's layers over a memory limiter (or Redis) of `capacity` and a cache holding `/v1/songs/1`. */
const withFrontDoor = <A>(env: Record<string, string>, use: (door: FrontDoor | undefined) => Effect.Effect<A, never, RateLimiter>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const cache = yield* ResponseCache
      cache.storeAt("/v1/songs/1", makeRepresentation(new TextEncoder().encode(`{"data":1}`), "application/json; charset=utf-8"), Date.now(), PUBLIC_FRESHNESS)
      return yield* use(yield* makeFrontDoor)
    }).pipe(
      Effect.provide(
        Layer.merge(Edge.layer, ServerSpans.layer).pipe(
          Layer.provideMerge(Layer.mergeAll(RateLimiter.layer, ResponseCache.layer, TokenVerifier.layer, InFlightRequests.layer, LoggingLive)),
          Layer.provideMerge(Telemetry.layer),
          Layer.provideMerge(AppConfig.layer)
        )
      ),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...TEST_ENV, ...env } })))
    )
  )

/** The front door alone. */
const frontDoorWith = (env: Record<string, string>) => withFrontDoor(env, Effect.succeed)

const socket = { requestIP: () => ({ address: "192.0.2.7" }) }

describe("the front door (cache hits before the Effect runtime)", () => {
  test("answers hits, unknown paths, preflights and 429s; hands misses and staff requests on to the pipeline", async () => {
    const door = await frontDoorWith({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "4" })
    expect(door).toBeDefined()
    const hit = door!(new Request("http://x/v1/songs/1"), socket)
    expect(hit?.status).toBe(200)
    expect(hit?.headers.get("x-cache")).toBe("hit")
    expect(await hit?.text()).toBe(`{"data":1}`)
    expect(door!(new Request("http://x/v1/songs/2"), socket)).toBeUndefined()
    expect(door!(new Request("http://x/v1/admin/songs/1"), socket)).toBeUndefined()
    expect(door!(new Request("http://x/v1/songs/1", { method: "OPTIONS" }), socket)?.status).toBe(204)
    expect(door!(new Request("http://x/v1/Songs/1"), socket)?.status).toBe(404)
    const limited = door!(new Request("http://x/v1/songs/1"), socket)
    expect(limited?.status).toBe(429)
    expect(((await limited?.json()) as { error: { code: string } }).error.code).toBe("rate_limited")
  })

  test("stays on with OTLP on: a sampled hit is answered there too, its traceparent naming its span", async () => {
    const door = await frontDoorWith({ ...REAL_EDGE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_TRACES_SAMPLER: "always_on" })
    expect(door).toBeDefined()
    const hit = door!(new Request("http://x/v1/songs/1"), socket)
    expect(hit?.headers.get("x-cache")).toBe("hit")
    expect(hit?.headers.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    expect(await frontDoorWith({ ...REAL_EDGE_ENV, CACHE_TTL_SECONDS: "0" })).toBeDefined()
  })

  testWhen(redisServerInstalled, "redis-server is not installed")("with buckets in Redis: a client with no token in hand goes on to the pipeline; once it holds a slice, its hits are answered here", async () => {
    const redis = await startThrowawayRedis()
    try {
      const seen = await withFrontDoor({ ...REAL_EDGE_ENV, RATE_LIMIT_REDIS_URL: redis.url }, (door) =>
        Effect.gen(function*() {
          const limiter = yield* RateLimiter
          const hit = () => door!(new Request("http://x/v1/songs/1"), socket)
          const answers: Array<number | undefined> = []
          // the first request of a client, and the second: no token in hand, the pipeline takes a slice (1, then 2)
          for (let i = 0; i < 2; i++) {
            answers.push(hit()?.status)
            yield* limiter.take("ip4:192.0.2.7")
          }
          answers.push(hit()?.status) // the second slice's other token
          // requests a few milliseconds apart: a slice running low is topped up in between
          for (let i = 0; i < 20; i++) {
            yield* Effect.sleep("5 millis")
            answers.push(hit()?.status)
          }
          return { answers, calls: yield* Effect.promise(redis.scriptCalls) }
        }))
      expect(seen.answers).toEqual([undefined, undefined, ...Array.from({ length: 21 }, () => 200)])
      expect(seen.calls).toBeLessThan(10)
    } finally {
      await redis.close()
    }
  })

  test("the cache key is the pipeline's request.url: path and query without the origin", () => {
    expect(pathAndQuery("http://127.0.0.1:3000/v1/songs/1?a=b")).toBe("/v1/songs/1?a=b")
    expect(pathAndQuery("http://127.0.0.1:3000")).toBe("/")
    expect(pathAndQuery("/v1")).toBe("/v1")
  })
})

/**
 * Two servers over one database, one without its front door (its hits go through the pipeline)
 * and one with it (its hits are answered there): every answer must be the same bytes with the
 * same headers.
 */
describe("front door and pipeline answer alike", () => {
  let frontDoor: TestServer
  let pipeline: TestServer
  const env = { ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "12" }
  beforeAll(async () => {
    frontDoor = await startEdgeServer(env)
    pipeline = await startEdgeServer(env, Layer.succeed(FrontDoorEnabled, false))
  }, 60_000)
  afterAll(async () => {
    await frontDoor.stop()
    await pipeline.stop()
  })

  const VARYING = new Set(["date", "traceparent", "x-ratelimit-reset", "ratelimit"])
  const exchange = async (server: TestServer, path: string, method: string, headers: Record<string, string>) => {
    const response = await fetch(server.baseUrl + path, { method, headers, decompress: false })
    const fields = [...response.headers].filter(([name]) => !VARYING.has(name)).sort(([a], [b]) => a.localeCompare(b))
    return { status: response.status, fields, bytes: Buffer.from(await response.arrayBuffer()).toString("base64") }
  }

  test("hits (identity, br, gzip, HEAD, 304) and the 429 after them", async () => {
    const path = "/v1/songs/1"
    const etag = (await fetch(frontDoor.baseUrl + path)).headers.get("etag") ?? ""
    await fetch(pipeline.baseUrl + path)
    const asks: Array<[string, Record<string, string>]> = [
      ["GET", {}],
      ["GET", { "accept-encoding": "br" }],
      ["GET", { "accept-encoding": "gzip" }],
      ["HEAD", {}],
      ["GET", { "if-none-match": etag }],
      ["HEAD", { "if-none-match": `W/${etag}` }],
      ["GET", { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }]
    ]
    // 12 tokens: the miss above, 7 hits, then 4 more hits and the 429s of GET and HEAD.
    for (const [method, headers] of [...asks, ...asks.slice(0, 4), ["GET", {}], ["HEAD", {}]] as typeof asks) {
      const [viaDoor, viaPipeline] = [await exchange(frontDoor, path, method, headers), await exchange(pipeline, path, method, headers)]
      expect(viaDoor).toEqual(viaPipeline)
    }
    const last = await fetch(frontDoor.baseUrl + path, { method: "HEAD" })
    expect(last.status).toBe(429)
  })
})
