import { describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { gunzipSync } from "node:zlib"
import { proxyUrl, replicaUrl } from "../../cluster/Cluster.js"
import { cluster, get } from "./support.js"

const state = cluster()
const proxy = proxyUrl(state)

interface Manifest {
  readonly cursor: string
  readonly files: ReadonlyArray<{ readonly type: string; readonly name: string; readonly rows: number; readonly bytes: number; readonly sha256: string; readonly url: string }>
}

/** The snapshot the replicas wrote at start into their one directory (one of them writes, all serve it). */
const manifestOf = async (base: string, from: string): Promise<Manifest> => {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const answer = await get(base, "/v1/snapshots", { from })
    if (answer.status === 200) return (JSON.parse(answer.body) as { data: Manifest }).data
    expect(answer.status).toBe(404)
    await Bun.sleep(1_000)
  }
  throw new Error("no snapshot within 90 s of the cluster's start")
}

describe("snapshots in the cluster", () => {
  test("every replica serves the one snapshot; nginx stores a file once and answers it, and its ranges, from its cache", async () => {
    const manifests = await Promise.all(state.replicas.map((replica, i) => manifestOf(replicaUrl(replica), `127.0.10.${i + 1}`)))
    for (const manifest of manifests) expect(manifest).toEqual(manifests[0]!)
    const songs = manifests[0]!.files.find((file) => file.type === "songs")!
    expect(songs.rows).toBeGreaterThan(0)

    const first = await get(proxy, songs.url, { from: "127.0.10.11" })
    expect(first.status).toBe(200)
    expect(first.headers["x-proxy-cache"]).toBe("MISS")
    expect(first.headers["cache-control"]).toContain("immutable")
    expect(createHash("sha256").update(first.bytes).digest("hex")).toBe(songs.sha256)
    expect(gunzipSync(first.bytes).toString("utf8").trimEnd().split("\n")).toHaveLength(songs.rows)

    const again = await get(proxy, songs.url, { from: "127.0.10.12" })
    expect({ status: again.status, cache: again.headers["x-proxy-cache"] }).toEqual({ status: 200, cache: "HIT" })
    expect(again.bytes.equals(first.bytes)).toBe(true)

    const range = await get(proxy, songs.url, { from: "127.0.10.13", headers: { range: "bytes=10-19" } })
    expect({ status: range.status, cache: range.headers["x-proxy-cache"] }).toEqual({ status: 206, cache: "HIT" })
    expect(range.headers["content-range"]).toBe(`bytes 10-19/${songs.bytes}`)
    expect(range.bytes.equals(first.bytes.subarray(10, 20))).toBe(true)
  }, 120_000)
})
