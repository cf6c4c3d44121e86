import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Stream } from "effect"
import { servedThroughPipeline } from "../src/App.js"
import { AppConfig } from "../src/Config.js"
import { ROUTER_CONFIG } from "../src/Http/Routes.js"
import { LoggingLive } from "../src/Logging.js"
import { InFlightRequests } from "../src/Shutdown.js"
import * as Telemetry from "../src/Telemetry.js"
import { TEST_ENV } from "./support/server.js"

/** Bigger than anything the edge would compress (src/Cache/Representation.ts COMPRESS_ABOVE_BYTES). */
const CHUNK = "x".repeat(4096)

let releaseSecondChunk: () => void = () => {}

/**
 * Handlers at the API's own paths (the edge admits only those), answering what no endpoint of the
 * API answers yet: a streamed body, and headers of the router's own.
 */
const TestRoutes = Layer.effectDiscard(
  Effect.gen(function*() {
    const router = yield* HttpRouter.HttpRouter
    yield* router.add(
      "GET",
      "/v1/songs/:songId",
      Effect.sync(() => {
        const second = new Promise<void>((resolve) => (releaseSecondChunk = resolve))
        const chunks = Stream.concat(
          Stream.make(new TextEncoder().encode(`${CHUNK}\n`)),
          Stream.fromEffect(Effect.promise(() => second)).pipe(Stream.map(() => new TextEncoder().encode(`${CHUNK}\n`)))
        )
        return HttpServerResponse.stream(chunks, { contentType: "application/x-ndjson" })
      })
    )
    yield* router.add(
      "GET",
      "/v1/albums/:albumId",
      HttpServerResponse.text(JSON.stringify({ data: CHUNK }), {
        contentType: "application/json",
        headers: {
          "content-disposition": `attachment; filename="album.json"`,
          "last-modified": "Sun, 29 Nov 2026 12:00:00 GMT",
          "x-internal-note": "never sent",
          "cache-control": "private"
        }
      })
    )
  })
)

const env = { ...TEST_ENV, CACHE_TTL_SECONDS: "30" }
const runtime = ManagedRuntime.make(
  servedThroughPipeline(HttpRouter.toHttpEffect(TestRoutes).pipe(Effect.provideService(HttpRouter.RouterConfig, ROUTER_CONFIG))).pipe(
    Layer.provideMerge(InFlightRequests.layer),
    Layer.provide(Telemetry.layer),
    Layer.provide(LoggingLive),
    Layer.provideMerge(AppConfig.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )
)

/** Effect's own test client for a server: it works because the Bun adaptor is Effect's HttpServer. */
let client: HttpClient.HttpClient
let baseUrl: string

const get = (path: string, headers: Record<string, string> = {}) =>
  runtime.runPromise(
    Effect.gen(function*() {
      const response = yield* client.execute(HttpClientRequest.get(path, { headers }))
      const text = yield* response.text
      return { status: response.status, headers: response.headers, text }
    }).pipe(Effect.scoped)
  )

beforeAll(async () => {
  client = await runtime.runPromise(HttpServer.makeTestClient.pipe(Effect.provide(FetchHttpClient.layer)))
  const { address } = await runtime.runPromise(HttpServer.HttpServer)
  baseUrl = `http://127.0.0.1:${(address as { readonly port: number }).port}`
})
afterAll(() => runtime.dispose())

describe("the pipeline passes a streamed body through", () => {
  test("each chunk is sent as the handler makes it: the first arrives while the second is not made yet", async () => {
    const response = await fetch(`${baseUrl}/v1/songs/1`, { headers: { "accept-encoding": "gzip" } })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    let received = ""
    while (!received.includes("\n")) {
      const { value } = await reader.read()
      received += new TextDecoder().decode(value)
    }
    expect(received).toBe(`${CHUNK}\n`)
    releaseSecondChunk()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      received += new TextDecoder().decode(value)
    }
    expect(received).toBe(`${CHUNK}\n${CHUNK}\n`)
  })

  test("uncompressed, without validators, never stored; under the route's rules", async () => {
    for (const round of [1, 2]) {
      const reply = get("/v1/songs/1", { "accept-encoding": "gzip, br" })
      setTimeout(() => releaseSecondChunk(), 10)
      const { headers, status, text } = await reply
      expect({ round, status }).toEqual({ round, status: 200 })
      expect(text).toBe(`${CHUNK}\n${CHUNK}\n`)
      expect(headers["content-type"]).toBe("application/x-ndjson")
      expect(headers["content-encoding"]).toBeUndefined()
      expect(headers["etag"]).toBeUndefined()
      expect(headers["x-cache"]).toBeUndefined()
      expect(headers["vary"]).toBeUndefined()
      expect(headers["cache-control"]).toBe("public, max-age=60, stale-while-revalidate=300, stale-if-error=86400")
      expect(headers["access-control-allow-origin"]).toBe("*")
      expect(headers["x-ratelimit-limit"]).toBeDefined()
    }
  })

  test("HEAD is the GET's answer without a body", async () => {
    const response = await fetch(`${baseUrl}/v1/songs/1`, { method: "HEAD" })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/x-ndjson")
    expect(await response.text()).toBe("")
  })
})

describe("the router response's own headers", () => {
  test("those on the allow-list are kept, any other dropped; the edge's rules decide caching", async () => {
    for (const round of [1, 2]) {
      const { headers, status, text } = await get("/v1/albums/1", { "accept-encoding": "gzip" })
      expect({ round, status }).toEqual({ round, status: 200 })
      expect(JSON.parse(text)).toEqual({ data: CHUNK })
      expect(headers["content-disposition"]).toBe(`attachment; filename="album.json"`)
      expect(headers["last-modified"]).toBe("Sun, 29 Nov 2026 12:00:00 GMT")
      expect(headers["x-internal-note"]).toBeUndefined()
      expect(headers["cache-control"]).toBe("public, max-age=60, stale-while-revalidate=300, stale-if-error=86400")
      expect(headers["content-type"]).toBe("application/json; charset=utf-8")
      expect(headers["etag"]).toMatch(/^"/)
      // bytes with headers the response cache does not keep are never stored: never a hit
      expect(headers["x-cache"]).toBeUndefined()
    }
  })
})
