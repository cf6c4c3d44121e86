import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { clusterSql, replicaMetricsUrl, signalReplica, startReplica, type ReplicaSpec } from "../../cluster/Cluster.js"
import { cluster, standbysCaughtUp } from "./support.js"

const state = cluster()
/** Beside the cluster's replicas, with Prometheus export on: one reading standby 1, one the primary. */
const onStandby: ReplicaSpec = { name: "extra-metrics-standby", port: state.ports.proxy + 12, reads: "standby1", metricsPort: state.ports.proxy + 20 }
const onPrimary: ReplicaSpec = { name: "extra-metrics-primary", port: state.ports.proxy + 13, reads: "primary", metricsPort: state.ports.proxy + 21 }

beforeAll(async () => {
  await Promise.all([onStandby, onPrimary].map((replica) => startReplica(state, replica, { METRICS: "prometheus" })))
}, 90_000)

afterAll(async () => {
  clusterSql(state, "standby1", "SELECT pg_wal_replay_resume()")
  await Promise.all([onStandby, onPrimary].map((replica) => signalReplica(state, replica, "SIGTERM")))
})

const scrape = async (replica: ReplicaSpec) => {
  const response = await fetch(replicaMetricsUrl(replica))
  expect(response.status).toBe(200)
  return response.text()
}

const lagOf = async (replica: ReplicaSpec) => {
  const value = /^catalogue_database_replay_lag_seconds (\S+)$/m.exec(await scrape(replica))?.[1]
  return value === undefined ? undefined : Number(value)
}

/** The lag once it satisfies `wanted`, polled for up to 15 s (it is read every 5 s, rendered at most once a second). */
const lagOnceItIs = async (wanted: (lag: number) => boolean, meanwhile: () => void = () => undefined) => {
  let lag: number | undefined
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    meanwhile()
    lag = await lagOf(onStandby)
    if (lag !== undefined && wanted(lag)) return lag
    await Bun.sleep(500)
  }
  throw new Error(`the replay lag never satisfied the test; last: ${lag}`)
}

/** A committed transaction on the primary for the standbys to replay. */
const commitOnPrimary = () => void clusterSql(state, "primary", "SELECT txid_current()")

describe("replay lag on the metrics port", () => {
  test("a replica on a standby gives its replay lag; a replica on the primary has none", async () => {
    commitOnPrimary()
    await standbysCaughtUp(state, ["standby1"])
    expect(await lagOnceItIs((lag) => lag >= 0 && lag < 30)).toBeGreaterThanOrEqual(0)
    const primaryText = await scrape(onPrimary)
    expect(primaryText).toMatch(/^catalogue_build_info\{/m)
    expect(primaryText).not.toContain("catalogue_database_replay_lag")
  }, 30_000)

  test("it grows while the standby's replay is paused, and falls back once replay catches up", async () => {
    clusterSql(state, "standby1", "SELECT pg_wal_replay_pause()")
    const pausedAt = Date.now()
    try {
      commitOnPrimary()
      // past 8 s of pause, the last transaction replayed was committed at least that long ago
      await Bun.sleep(8_000)
      expect(await lagOnceItIs((lag) => lag >= (Date.now() - pausedAt) / 1000 - 6)).toBeGreaterThanOrEqual(8 - 6)
    } finally {
      clusterSql(state, "standby1", "SELECT pg_wal_replay_resume()")
    }
    // with a commit every half second replayed at once, the last one is never more than a second or two old
    expect(await lagOnceItIs((lag) => lag < 2, commitOnPrimary)).toBeLessThan(2)
  }, 45_000)
})
