import { describe, expect, test } from "bun:test"
import { onPostgres } from "./support/database.js"
import { testWhen, ON_POSTGRES_ONLY } from "./support/skips.js"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { spawnService } from "./support/child.js"
import { databaseEnv } from "./support/database.js"
import { fixtureDatabase, migratedDatabase } from "./support/template.js"
import { request } from "./support/http.js"
import { Connection, getHead, keepAliveLoad } from "./support/keepAlive.js"
import { slow } from "./support/slow.js"

describe("graceful shutdown", () => {
  // The slow request waits on a table lock held from here: that needs PostgreSQL (TEST_DATABASE_URL).
  testWhen(onPostgres, ON_POSTGRES_ONLY)("SIGTERM stops accepting, lets a slow request in flight finish, and exits 0", async () => {
    const database = await migratedDatabase()
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    const service = spawnService({ ...databaseEnv(database), LOG_FORMAT: "json", CACHE_TTL_SECONDS: "0" })
    const locker = new pg.Client({ connectionString: database.url })
    try {
      const baseUrl = await service.baseUrl(60_000)
      // Each request on its own connection, as separate clients make them.
      const fresh = { keepalive: false, headers: { connection: "close" } }
      expect((await request(baseUrl, "/v1/stats", fresh)).status).toBe(200)

      // A real slow request: /v1/stats waits for the table lock this test holds.
      await locker.connect()
      await locker.query("BEGIN")
      await locker.query("LOCK TABLE songs IN ACCESS EXCLUSIVE MODE")
      // The slow request comes from another process, as another client would.
      const slowClient = Bun.spawn(
        ["bun", "-e", "const r = await fetch(process.argv[1]); console.log(r.status, await r.text())", baseUrl + "/v1/stats"],
        { stdout: "pipe", stderr: "pipe" }
      )
      const slow = new Response(slowClient.stdout).text()
      const name = new URL(database.url).pathname.slice(1)
      for (let waiting = 0; waiting === 0; await Bun.sleep(50)) {
        const { rows } = await locker.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
          [name]
        )
        waiting = rows[0]?.n ?? 0
      }

      service.process.kill("SIGTERM")
      const exit = service.exited.then((code) => ({ code, at: Date.now() }))
      await service.waitForLine(/shutting down: readiness 503, answering with Connection: close/, 5_000)
      // for a grace second, new requests are still answered, each asking the client to close;
      // readiness fails, so that a load balancer stops sending
      const during = await fetch(baseUrl + "/v1/health", fresh)
      expect(during.status).toBe(200)
      expect(during.headers.get("connection")).toBe("close")
      const ready = await fetch(baseUrl + "/v1/health/ready", fresh)
      expect({ status: ready.status, connection: ready.headers.get("connection"), retryAfter: ready.headers.get("retry-after"), body: await ready.json() }).toEqual({
        status: 503,
        connection: "close",
        retryAfter: "5",
        body: { error: { code: "internal_error", message: "The service is shutting down." } }
      })
      await service.waitForLine(/shutting down: no new connections; 1 request\(s\) in flight/, 5_000)
      // No new connections once the grace is over.
      const refused = await fetch(baseUrl + "/v1/health", fresh).then(
        (response) => `answered ${response.status}`,
        (error: { code?: string }) => error.code ?? "failed"
      )
      // refused, or reset when the connection was already queued as the listener closed: never served
      expect(["ConnectionRefused", "ECONNREFUSED", "ECONNRESET"]).toContain(refused)
      expect(service.process.exitCode).toBeNull()

      await Bun.sleep(700)
      const releasedAt = Date.now()
      await locker.query("COMMIT")
      const reply = await slow
      expect(reply).toMatch(/^200 \{"data":\{"songs"/)
      expect(await slowClient.exited).toBe(0)
      // the process stayed up for the request, then exited cleanly
      expect(await exit).toEqual({ code: 0, at: expect.any(Number) })
      expect((await exit).at).toBeGreaterThanOrEqual(releasedAt)
      expect(service.stderr()).toBe("")
    } finally {
      await locker.end().catch(() => undefined)
      service.process.kill("SIGKILL")
      await database.drop()
    }
  }, 120_000)

  // Ten services in turn over one PostgreSQL database, each under keep-alive load through SIGTERM.
  testWhen(onPostgres, ON_POSTGRES_ONLY)("keep-alive traffic through SIGTERM, ten times: readiness says 503 at once, and no request written is left without an answer", async () => {
    const database = await fixtureDatabase()
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    const env = { ...databaseEnv(database), CACHE_TTL_SECONDS: "0", RATE_LIMIT_CAPACITY: "1000000" }
    const paths = ["/v1/songs/1", "/v1/search?q=cinta", "/v1/albums/1", "/v1/artists/1", "/v1/search?q=lagu&types=songs", "/v1/songs/2"]
    const runs: Array<{ readonly ready: number; readonly dropped: number; readonly whileDraining: number; readonly exit: number }> = []
    try {
      for (let run = 0; run < 10; run++) {
        const service = spawnService(env)
        const baseUrl = await service.baseUrl(60_000)
        const load = keepAliveLoad(baseUrl, paths, 24, service.exited)
        await Bun.sleep(300)
        service.process.kill("SIGTERM")
        await service.waitForLine(/shutting down/, 5_000)
        const ready = await request(baseUrl, "/v1/health/ready", { keepalive: false, headers: { connection: "close" } })
        const exit = await service.exited
        const exchanges = await load
        runs.push({
          ready: ready.status,
          // written on an open connection (new or kept alive), which then closed with no answer
          dropped: exchanges.filter((exchange) => exchange.status === undefined).length,
          whileDraining: exchanges.filter((exchange) => exchange.close).length,
          exit
        })
        expect(service.stderr()).toBe("")
      }
    } finally {
      await database.drop()
    }
    console.log(`keep-alive through SIGTERM: ${runs.map((r) => r.whileDraining).join(", ")} requests answered while draining`)
    expect(runs.map(({ ready, dropped, exit }) => ({ ready, dropped, exit }))).toEqual(runs.map(() => ({ ready: 503, dropped: 0, exit: 0 })))
    // each run answered requests while draining: the load went through the signal
    expect(runs.filter((r) => r.whileDraining === 0)).toEqual([])
  }, 120_000)

  // What HTTP/1.1 leaves open, reproduced: nothing can tell a client on an idle kept-alive connection
  // to stop using it, so a request it writes as the server closes that connection crosses the close.
  testWhen(onPostgres, ON_POSTGRES_ONLY)("HTTP/1.1's own race: a connection idle through the grace is kept open until the listener closes, then closed with nothing said on it", async () => {
    const database = await migratedDatabase()
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    const service = spawnService({ ...databaseEnv(database) })
    try {
      const baseUrl = await service.baseUrl(60_000)
      const { hostname, port } = new URL(baseUrl)
      const [writes, idles] = (await Promise.all([Connection.open(hostname, Number(port)), Connection.open(hostname, Number(port))])) as [Connection, Connection]
      for (const connection of [writes, idles]) expect(await connection.send(getHead(baseUrl, "/v1/health"))).toEqual({ status: 200, close: false })
      service.process.kill("SIGTERM")
      await service.waitForLine(/shutting down: readiness 503/, 5_000)
      let closedAt: number | undefined
      void idles.closed.then(() => (closedAt = Date.now()))
      // through the grace an idle connection is left open: a request written on it is answered, saying close
      await Bun.sleep(200)
      expect(await writes.send(getHead(baseUrl, "/v1/health"))).toEqual({ status: 200, close: true })
      expect(closedAt).toBeUndefined()
      // the other, idle all along, is closed with the listener: a request written in the instant
      // the close is on its way gets no answer, and no header could have warned its client
      await service.waitForLine(/shutting down: no new connections/, 5_000)
      await idles.closed
      expect(await idles.send(getHead(baseUrl, "/v1/health"))).toBeUndefined()
      expect(await service.exited).toBe(0)
    } finally {
      service.process.kill("SIGKILL")
      await database.drop()
    }
  }, 60_000)

  slow(test, "an embedded database made and migrated from nothing, then reopened", 4)("SIGINT closes the embedded database cleanly: the lock is released and the data directory reopens", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "catalogue-shutdown-"))
    try {
      const first = spawnService({ DATA_DIR: dataDir })
      const firstUrl = await first.baseUrl(90_000)
      expect((await request(firstUrl, "/v1/health/ready")).status).toBe(200)
      expect(existsSync(join(dataDir, "catalogue.lock"))).toBe(true)
      first.process.kill("SIGINT")
      expect(await first.exited).toBe(0)
      expect(existsSync(join(dataDir, "catalogue.lock"))).toBe(false)

      const second = spawnService({ DATA_DIR: dataDir })
      const secondUrl = await second.baseUrl(90_000)
      const ready = await request(secondUrl, "/v1/health/ready")
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ data: { status: "ok", database: "reachable" } })
      // the schema survived: no migration ran twice
      expect(second.stdout()).toMatch(/migrations_applied=none/)
      second.process.kill("SIGTERM")
      expect(await second.exited).toBe(0)
      expect(second.stderr()).toBe("")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
