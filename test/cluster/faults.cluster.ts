import { describe, expect, test } from "bun:test"
import pg from "pg"
import { HEALTH_BOUND_MS } from "../../cluster/haproxy.js"
import {
  balancerStatus,
  databaseUrl,
  proxyUrl,
  replicaUrl,
  restartDatabase,
  signalReplica,
  startReplica,
  stopDatabase
} from "../../cluster/Cluster.js"
import { cluster, get, PUBLIC_PATHS, runLoad } from "./support.js"

const state = cluster()
const proxy = proxyUrl(state)
const behindProxy = state.replicas.filter((replica) => replica.reads !== "primary")

const expectUnavailableEnvelope = (answer: { status: number; body: string }) => {
  expect(answer.status).toBe(503)
  expect(JSON.parse(answer.body)).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) })
}

describe("replicas behind the proxy", () => {
  test("a replica killed (SIGKILL) under load: no client request fails, the proxy retries the GET on another", async () => {
    const victim = behindProxy[0]!
    const load = runLoad(proxy, PUBLIC_PATHS, Bun.sleep(6_000))
    await Bun.sleep(2_000)
    await signalReplica(state, victim, "SIGKILL")
    const result = await load
    expect(result.sent).toBeGreaterThan(100)
    expect(result.failures).toEqual([])
    await startReplica(state, victim)
  }, 90_000)

  test("each replica drained (SIGTERM) and restarted in turn under load: 0 failed requests", async () => {
    let rolling = true
    const roll = (async () => {
      for (const replica of behindProxy) {
        await signalReplica(state, replica, "SIGTERM")
        await startReplica(state, replica)
      }
      rolling = false
    })()
    const result = await runLoad(proxy, PUBLIC_PATHS, roll)
    expect(rolling).toBe(false)
    expect(result.sent).toBeGreaterThan(100)
    expect(result.failures).toEqual([])
  }, 180_000)
})

describe("the balancer's health checks on /v1/health/ready", () => {
  test("a replica whose database is away (alive, not ready) leaves the rotation within the bound, no client sees its 503; back when ready", async () => {
    // the only replica on the second standby: stopping that standby leaves the process running, unready
    const replica = state.replicas.find((candidate) => candidate.reads === "standby2")!
    const statusOf = async () => (await balancerStatus(state))[replica.name]!
    const waitUntil = async (wanted: (status: string) => boolean) => {
      const started = Date.now()
      while (!wanted((await statusOf()).status) && Date.now() - started < 3 * HEALTH_BOUND_MS) await Bun.sleep(50)
      return Date.now() - started
    }
    expect((await statusOf()).status).toBe("UP")
    let loading = true
    const load = runLoad(proxy, PUBLIC_PATHS, (async () => {
      while (loading) await Bun.sleep(50)
    })())
    try {
      await Bun.sleep(1_000)
      stopDatabase(state, "standby2", "fast")
      let restarted = false
      try {
        expect(await waitUntil((status) => status.startsWith("DOWN"))).toBeLessThan(HEALTH_BOUND_MS)
        expect((await get(replicaUrl(replica), "/v1/health/ready")).status).toBe(503)
        // out of rotation: the balancer sends it nothing more
        const before = (await statusOf()).sessions
        await Bun.sleep(2_000)
        expect((await statusOf()).sessions).toBe(before)
        restartDatabase(state, "standby2")
        restarted = true
        expect(await waitUntil((status) => status === "UP")).toBeLessThan(HEALTH_BOUND_MS)
        // and back in it
        const back = (await statusOf()).sessions
        await Bun.sleep(1_000)
        expect((await statusOf()).sessions).toBeGreaterThan(back)
      } finally {
        if (!restarted) restartDatabase(state, "standby2")
      }
    } finally {
      loading = false
    }
    const result = await load
    expect(result.sent).toBeGreaterThan(100)
    // the answers of the moment before the checks caught it were tried again on another replica
    expect(result.failures).toEqual([])
  }, 60_000)
})

describe("the standby", () => {
  test("stopped: its replicas answer 503 envelopes within 2 s each; back: 200 again within 2 s", async () => {
    const replica = state.replicas.find((candidate) => candidate.reads === "standby1")!
    // distinct paths: no answer may come from a cache
    let n = 0
    const ask = async () => {
      const started = Date.now()
      const answer = await get(replicaUrl(replica), `/v1/songs?limit=3&offset=${n++ % 5}`)
      return { answer, ms: Date.now() - started }
    }
    expect((await ask()).answer.status).toBe(200)
    stopDatabase(state, "standby1", "fast")
    try {
      for (let i = 0; i < 8; i++) {
        const { answer, ms } = await ask()
        expectUnavailableEnvelope(answer)
        expect(ms).toBeLessThan(2_000)
        // through the proxy: 200 from the replica on the other standby, or the same envelope
        const viaProxy = await get(proxy, `/v1/songs?limit=2&standby=${i}`)
        if (viaProxy.status !== 200) expectUnavailableEnvelope(viaProxy)
      }
    } finally {
      restartDatabase(state, "standby1")
    }
    const back = Date.now()
    let status = 0
    while (status !== 200 && Date.now() - back < 5_000) {
      status = (await ask()).answer.status
      if (status !== 200) await Bun.sleep(50)
    }
    expect(status).toBe(200)
    expect(Date.now() - back).toBeLessThan(2_000)
  }, 60_000)

  test("a query cancelled by a recovery conflict is answered 503 (never 500)", async () => {
    const replica = state.replicas.find((candidate) => candidate.reads === "standby1")!
    const primary = new pg.Client({ connectionString: databaseUrl(state, "primary") })
    const flusher = new pg.Client({ connectionString: databaseUrl(state, "primary") })
    const standby = new pg.Client({ connectionString: databaseUrl(state, "standby1") })
    await Promise.all([primary.connect(), flusher.connect(), standby.connect()])
    try {
      // the standby's replay takes the primary's lock on songs: the song detail's statement waits
      // for it, holding its lock on public_songs; then replay wants public_songs too and, after
      // max_standby_streaming_delay (1 s), cancels the statement in its way
      await primary.query("BEGIN")
      await primary.query("LOCK TABLE songs IN ACCESS EXCLUSIVE MODE")
      await flusher.query("SELECT pg_current_xact_id()")
      await waitForStandbyLock(standby, "songs")
      const detail = get(replicaUrl(replica), "/v1/songs/2?conflict=1")
      await waitForWaiter(standby)
      await primary.query("LOCK TABLE public_songs IN ACCESS EXCLUSIVE MODE")
      await flusher.query("SELECT pg_current_xact_id()")
      const answer = await detail
      if (answer.status !== 200) expectUnavailableEnvelope(answer)
      expect(answer.status).toBe(503)
      // the cancelled session reports its conflict to the statistics within a second or so
      let conflicts = 0
      for (let i = 0; i < 40 && conflicts === 0; i++, await Bun.sleep(100)) {
        await standby.query("SELECT pg_stat_clear_snapshot()")
        conflicts = (await standby.query<{ n: number }>(
          "SELECT (confl_lock + confl_deadlock + confl_snapshot)::int AS n FROM pg_stat_database_conflicts WHERE datname = current_database()"
        )).rows[0]!.n
      }
      expect(conflicts).toBeGreaterThan(0)
    } finally {
      await primary.query("ROLLBACK").catch(() => undefined)
      await Promise.all([primary.end(), flusher.end(), standby.end()])
    }
  }, 60_000)
})

const waitForStandbyLock = async (standby: pg.Client, relation: string) => {
  for (let i = 0; i < 100; i++) {
    const { rows } = await standby.query(
      "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = $1 AND l.mode = 'AccessExclusiveLock' AND l.granted",
      [relation]
    )
    if (rows.length > 0) return
    await Bun.sleep(50)
  }
  throw new Error(`replay never took the lock on ${relation}`)
}

const waitForWaiter = async (standby: pg.Client) => {
  for (let i = 0; i < 100; i++) {
    const { rows } = await standby.query("SELECT 1 FROM pg_locks WHERE NOT granted")
    if (rows.length > 0) return
    await Bun.sleep(50)
  }
  throw new Error("the request never waited on the standby")
}
