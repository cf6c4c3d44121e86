import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RedisClient } from "bun"

export interface ThrowawayRedis {
  /** for RATE_LIMIT_REDIS_URL: the server listens on a Unix socket of its own, no TCP port */
  readonly url: string
  /** rate-limit scripts the server has run so far (EVALSHA and EVAL calls, from INFO commandstats) */
  readonly scriptCalls: () => Promise<number>
  /** stops the server (the socket goes away: clients see Redis gone) */
  readonly stop: () => Promise<void>
  /** starts it again on the same socket, empty */
  readonly start: () => Promise<void>
  /** SIGSTOP / SIGCONT: a Redis that holds connections open and answers nothing */
  readonly freeze: () => void
  readonly thaw: () => void
  /** stops the server and removes its directory */
  readonly close: () => Promise<void>
}

/** Whether redis-server is installed (.ci/run installs it; without it, tests that need one are skipped, saying so). */
export const redisServerInstalled = Bun.which("redis-server") !== null
if (!redisServerInstalled) console.warn("SKIPPED: tests with a Redis of their own (no redis-server installed)")

/** A redis-server of a test's own, so that its command counts are the test's alone. */
export const startThrowawayRedis = async (): Promise<ThrowawayRedis> => {
  const dir = mkdtempSync(join(tmpdir(), "catalogue-redis-"))
  const socket = join(dir, "redis.sock")
  let child: ReturnType<typeof Bun.spawn> | undefined
  const url = `redis+unix://${socket}`
  const probe = new RedisClient(url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 1000 })

  const start = async () => {
    child = Bun.spawn(
      ["redis-server", "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdout: "ignore", stderr: "ignore" }
    )
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      if (!probe.connected) await probe.connect().catch(() => undefined)
      if (await probe.ping().then(() => true, () => false)) return
      await Bun.sleep(50)
    }
    throw new Error("the throw-away redis-server did not start")
  }

  const stop = async () => {
    if (child === undefined) return
    child.kill("SIGKILL")
    await child.exited
    child = undefined
    probe.close()
  }

  const scriptCalls = async () => {
    const info = String(await probe.send("INFO", ["commandstats"]))
    let calls = 0
    for (const match of info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) calls += Number(match[2])
    return calls
  }

  await start()
  return {
    url,
    scriptCalls,
    stop,
    start,
    freeze: () => child?.kill("SIGSTOP"),
    thaw: () => child?.kill("SIGCONT"),
    close: async () => {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
