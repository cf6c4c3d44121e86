import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { resolve } from "node:path"
import { MAX_HEADER_BYTES, MAX_TARGET_BYTES } from "../src/Http/Edge.js"
import { type ServiceProcess, spawnService, START_COMMAND } from "./support/child.js"
import { databaseEnv, type TestDatabase } from "./support/database.js"
import { migratedDatabase } from "./support/template.js"
import { rawExchange, rawGet } from "./support/raw.js"

const ROOT = resolve(import.meta.dir, "..")
const BUN_HEAD_FLAG = /--max-http-header-size=(\d+)/

const expectEnvelope = (reply: { status: number | undefined; headers: Headers; body: string }, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  expect(reply.headers.get("cache-control")).toBe("no-store")
  expect(reply.headers.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
  expect(JSON.parse(reply.body)).toEqual({ error: { code, message: expect.any(String) } })
}

describe("the service as started (bun run start): answers the runtime would otherwise give", () => {
  let database: TestDatabase
  let service: ServiceProcess
  let baseUrl: string
  beforeAll(async () => {
    database = await migratedDatabase()
    service = spawnService({ ...databaseEnv(database) })
    baseUrl = await service.baseUrl(90_000)
  }, 120_000)
  afterAll(async () => {
    service.process.kill("SIGKILL")
    await database.drop()
  }, 30_000)

  test("Bun's own limit on a request head is set above ours wherever the service starts", () => {
    const bunLimit = Number(BUN_HEAD_FLAG.exec(START_COMMAND.join(" "))?.[1])
    expect(bunLimit).toBeGreaterThan(MAX_TARGET_BYTES + MAX_HEADER_BYTES)
    expect(readFileSync(resolve(ROOT, "Dockerfile"), "utf8")).toContain(`"--max-http-header-size=${bunLimit}"`)
    expect(readFileSync(resolve(ROOT, "test/run.ts"), "utf8")).toContain(`--max-http-header-size=${bunLimit}`)
  })

  test("a request target over 8 KiB: 414 with the envelope", async () => {
    expectEnvelope(await rawGet(baseUrl, `/v1/songs?q=${"a".repeat(MAX_TARGET_BYTES)}`), 414, "bad_request")
    expectEnvelope(await rawGet(baseUrl, `/v1/${"a".repeat(MAX_TARGET_BYTES)}`), 414, "bad_request")
  })

  test("header fields over 16 KiB, a 100 kB bearer token included: 431 with the envelope", async () => {
    expectEnvelope(await rawGet(baseUrl, "/v1/songs/1", { "x-filler": "a".repeat(20_000) }), 431, "bad_request")
    expectEnvelope(await rawGet(baseUrl, "/v1/admin/stats", { authorization: `Bearer ${"a".repeat(100_000)}` }), 431, "bad_request")
  })

  test("an unknown path echoes at most a short prefix of itself", async () => {
    const reply = await rawGet(baseUrl, `/v1/${"x".repeat(5_000)}`)
    expectEnvelope(reply, 404, "not_found")
    expect(reply.body.length).toBeLessThan(200)
  })

  test("other methods on a known path: 405 with Allow; an unknown path: 404", async () => {
    const known = await rawExchange(baseUrl, `DELETE /v1/songs/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    expectEnvelope(known, 405, "bad_request")
    expect(known.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
    expectEnvelope(await rawExchange(baseUrl, `POST /v1/nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`), 404, "not_found")
  })

  /** What Bun's parser answers before the app can (docs/edge.md): pinned, so an upgrade that changes it is noticed. */
  test("requests Bun refuses while parsing never reach the service, and get no body from it", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["a raw space in the target", `GET /v1/songs/1 x HTTP/1.1\r\nHost: x\r\n\r\n`],
      ["Content-Length with Transfer-Encoding", `GET /v1/songs/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n`],
      ["two Content-Lengths", `GET /v1/songs/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`],
      ["an unknown method", `BREW /v1/songs/1 HTTP/1.1\r\nHost: x\r\n\r\n`],
      ["a head over Bun's limit", `GET /v1/songs/1 HTTP/1.1\r\nHost: x\r\nX-Filler: ${"a".repeat(140_000)}\r\n\r\n`]
    ]
    for (const [name, head] of cases) {
      const reply = await rawExchange(baseUrl, head)
      expect([undefined, 400, 431, 505], name).toContain(reply.status)
      expect(reply.body, name).toBe("")
    }
    // and the service is still there
    expect((await rawGet(baseUrl, "/v1/health")).status).toBe(200)
  })
})

/** A keep-alive client: one socket, one request at a time, the whole answer read by its Content-Length. */
const keepAliveClient = (baseUrl: string) => {
  const { hostname, port } = new URL(baseUrl)
  const socket: Socket = connect({ host: hostname, port: Number(port) })
  let buffer = Buffer.alloc(0)
  let waiting: ((answer: { status: number; close: boolean } | undefined) => void) | undefined
  const settle = () => {
    const end = buffer.indexOf("\r\n\r\n")
    if (end === -1 || waiting === undefined) return
    const head = buffer.subarray(0, end).toString("latin1")
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
    if (buffer.length < end + 4 + length) return
    buffer = buffer.subarray(end + 4 + length)
    const resolveAnswer = waiting
    waiting = undefined
    resolveAnswer({ status: Number(head.slice(9, 12)), close: /\r\nconnection: *close/i.test(head) })
  }
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk])
    settle()
  })
  socket.on("error", () => undefined)
  socket.on("close", () => waiting?.(undefined))
  const ready = new Promise<void>((resolveReady) => socket.once("connect", () => resolveReady()))
  return {
    ready,
    /** undefined: the connection ended before the whole answer came */
    get: (path: string) =>
      new Promise<{ status: number; close: boolean } | undefined>((resolveAnswer) => {
        waiting = resolveAnswer
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`)
      }),
    close: () => socket.destroy()
  }
}

describe("draining on SIGTERM", () => {
  test("every answer from the signal on says Connection: close; keep-alive clients under load lose no request sent before it", async () => {
    const database = await migratedDatabase()
    const service = spawnService({ ...databaseEnv(database), CACHE_TTL_SECONDS: "0", RATE_LIMIT_CAPACITY: "1000000", RATE_LIMIT_MAX_IN_FLIGHT: "1000000" })
    try {
      const baseUrl = await service.baseUrl(90_000)
      const clients = Array.from({ length: 24 }, () => keepAliveClient(baseUrl))
      await Promise.all(clients.map((client) => client.ready))
      let signalledAt = Infinity
      const lostBeforeSignal: Array<number> = []
      let answeredAfterSignal = 0
      let keptOpenAfterSignal = 0
      let answered = 0
      const loops = clients.map(async (client) => {
        for (;;) {
          const sentAt = performance.now()
          const answer = await client.get("/v1/stats")
          if (answer === undefined) {
            if (sentAt < signalledAt) lostBeforeSignal.push(sentAt)
            return
          }
          answered++
          if (sentAt >= signalledAt) {
            answeredAfterSignal++
            if (!answer.close) keptOpenAfterSignal++
          }
          if (answer.close) return client.close()
        }
      })
      await Bun.sleep(1_500)
      signalledAt = performance.now()
      service.process.kill("SIGTERM")
      await Promise.all(loops)
      expect(await service.exited).toBe(0)
      console.log(`drain: ${answered} answers on 24 keep-alive connections, ${answeredAfterSignal} after the signal, ${lostBeforeSignal.length} lost`)
      expect(answered).toBeGreaterThan(24)
      expect(lostBeforeSignal).toEqual([])
      expect(keptOpenAfterSignal).toBe(0)
    } finally {
      service.process.kill("SIGKILL")
      await database.drop()
    }
  }, 120_000)
})
