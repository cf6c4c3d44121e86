import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { spawnService } from "./support/child.js"
import { databaseEnv, resolveTestDatabase } from "./support/database.js"
import { request } from "./support/http.js"

describe("graceful shutdown", () => {
  // The slow request waits on a table lock held from here: that needs PostgreSQL (TEST_DATABASE_URL).
  test.skipIf(!process.env.TEST_DATABASE_URL)("SIGTERM stops accepting, lets a slow request in flight finish, and exits 0", async () => {
    const database = await resolveTestDatabase()
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
      await service.waitForLine(/shutting down: answering with Connection: close/, 5_000)
      // for a grace second, new requests are still answered, each asking the client to close
      const during = await fetch(baseUrl + "/v1/health", fresh)
      expect(during.status).toBe(200)
      expect(during.headers.get("connection")).toBe("close")
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

  test("SIGINT closes the embedded database cleanly: the lock is released and the data directory reopens", async () => {
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
  }, 240_000)
})
