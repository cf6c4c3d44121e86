import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { clusterSql, databaseUrl, replicaUrl, signalReplica, startReplica, type ReplicaSpec } from "../../cluster/Cluster.js"
import { spawnService } from "../support/child.js"
import { cluster, get, standbysCaughtUp as caughtUp } from "./support.js"

const state = cluster()
/** A replica beside the cluster's, reading the primary: what the standby's readers must equal. */
const onPrimary: ReplicaSpec = { name: "extra-primary", port: state.ports.proxy + 10, reads: "primary" }
const onStandby = state.replicas.find((replica) => replica.reads === "standby1")!

beforeAll(async () => {
  await startReplica(state, onPrimary)
}, 90_000)

afterAll(async () => {
  await signalReplica(state, onPrimary, "SIGTERM")
})

const standbysCaughtUp = () => caughtUp(state)

const LISTS = [
  "/v1/songs?limit=50",
  "/v1/songs?sort=title&limit=50",
  "/v1/albums?limit=50",
  "/v1/artists?limit=50",
  "/v1/artists?sort=song_count&limit=50",
  "/v1/curated-lists?limit=50",
  "/v1/genres",
  "/v1/labels?limit=50",
  "/v1/users?limit=50",
  "/v1/stats",
  "/v1/search?q=cinta",
  "/v1/search?q=siti",
  "/v1/search?q=a",
  "/v1/search?q=rindu&type=songs"
]

describe("reads on the standby", () => {
  test("search, lists and details on the standby answer byte for byte as on the primary", async () => {
    await standbysCaughtUp()
    const paths = [...LISTS]
    for (const [list, detail] of [["/v1/songs?limit=50", "/v1/songs/"], ["/v1/albums?limit=50", "/v1/albums/"], ["/v1/artists?limit=50", "/v1/artists/"], ["/v1/curated-lists?limit=50", "/v1/curated-lists/"]] as const) {
      const page = JSON.parse((await get(replicaUrl(onPrimary), list)).body) as { data: Array<{ id: number }> }
      expect(page.data.length).toBeGreaterThan(0)
      for (const item of page.data) paths.push(`${detail}${item.id}`)
    }
    // the change feed's cursor holds the time it was read at: its entries are compared instead
    const [primaryFeed, standbyFeed] = await Promise.all([get(replicaUrl(onPrimary), "/v1/changes?limit=1000"), get(replicaUrl(onStandby), "/v1/changes?limit=1000")])
    expect(JSON.parse(standbyFeed.body).data).toEqual(JSON.parse(primaryFeed.body).data)
    for (const path of paths) {
      const [primary, standby] = await Promise.all([get(replicaUrl(onPrimary), path), get(replicaUrl(onStandby), path)])
      expect({ path, status: standby.status, body: standby.body }).toEqual({ path, status: primary.status, body: primary.body })
      expect(standby.headers.etag).toBe(primary.headers.etag)
    }
  }, 60_000)
})

describe("migrations and the standby", () => {
  test("a service on a standby never migrates it, and refuses to start when its schema lacks a migration", async () => {
    const [last] = clusterSql(state, "primary", "SELECT path || '|' || checksum FROM schema_history ORDER BY path DESC LIMIT 1")
      .trim().split("\n")
    const [path, checksum] = last!.split("|") as [string, string]
    clusterSql(state, "primary", `DELETE FROM schema_history WHERE path = '${path}'`)
    try {
      await standbysCaughtUp()
      const service = spawnService({ DATABASE_URL: databaseUrl(state, "standby1"), PORT: String(state.ports.proxy + 11) })
      expect(await service.exited).toBe(1)
      expect(service.stderr().trim()).toBe(
        `cannot start: the read replica's schema lacks sql/${path}: run bun run migrate against the primary`
      )
    } finally {
      clusterSql(state, "primary", `INSERT INTO schema_history (path, checksum) VALUES ('${path}', '${checksum}')`)
      await standbysCaughtUp()
    }
  }, 60_000)
})
