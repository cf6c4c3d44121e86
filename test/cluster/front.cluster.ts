import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { balancerStatus, proxyAccessLog, proxyUrl, restartDatabase, stopDatabase } from "../../cluster/Cluster.js"
import { HEALTH_BOUND_MS } from "../../cluster/haproxy.js"
import { cluster, get } from "./support.js"

const state = cluster()
const proxy = proxyUrl(state)
const STANDBYS = ["standby1", "standby2"] as const

const waitForBalancer = async (wanted: (statuses: ReadonlyArray<string>) => boolean, what: string) => {
  const deadline = Date.now() + 3 * HEALTH_BOUND_MS
  while (Date.now() < deadline) {
    if (wanted(Object.values(await balancerStatus(state)).map((replica) => replica.status))) return
    await Bun.sleep(100)
  }
  throw new Error(`the balancer's checks never found ${what}`)
}

describe("the front when every replica fails (nginx before HAProxy)", () => {
  test("every replica's database away: a page nginx stored still answers 200 (its expired copy); one it never stored is a 503 envelope with Retry-After", async () => {
    // a change-feed page is fresh for 2 s (max-age=2): it expires within the test
    const path = `/v1/changes?limit=5&front=${Date.now()}`
    const first = await get(proxy, path, { from: "127.0.9.1" })
    expect(first.status).toBe(200)
    expect(first.headers["x-proxy-cache"]).toBe("MISS")
    expect(first.headers["cache-control"]).toContain("stale-if-error=")
    const storedAt = Date.now()
    for (const standby of STANDBYS) stopDatabase(state, standby, "fast")
    try {
      await waitForBalancer((statuses) => statuses.every((status) => status.startsWith("DOWN")), "every replica DOWN")
      // expired: nginx counts max-age in whole seconds, and only past the last one
      await Bun.sleep(Math.max(0, storedAt + 4_000 - Date.now()))
      const stale = await get(proxy, path, { from: "127.0.9.2" })
      expect({ status: stale.status, cache: stale.headers["x-proxy-cache"] }).toEqual({ status: 200, cache: "STALE" })
      expect(stale.body).toBe(first.body)
      // nothing stored for this one: the balancer's own answer is passed on
      const unstored = await get(proxy, `/v1/songs?limit=2&front=${Date.now()}`, { from: "127.0.9.3" })
      expect(unstored.status).toBe(503)
      expect(unstored.headers["retry-after"]).toBe("5")
      expect(unstored.headers["cache-control"]).toBe("no-store")
      expect(JSON.parse(unstored.body)).toEqual({ error: { code: "internal_error", message: expect.any(String) } })
    } finally {
      for (const standby of STANDBYS) restartDatabase(state, standby)
      await waitForBalancer((statuses) => statuses.every((status) => status === "UP"), "every replica UP again")
    }
  }, 60_000)

  test("nginx's access log names the trace of each answer: the traceparent the client was sent", async () => {
    const path = `/v1/songs?limit=3&trace=${Date.now()}`
    const answer = await get(proxy, path, { from: "127.0.9.4" })
    expect(answer.status).toBe(200)
    const traceparent = answer.headers["traceparent"]
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
    // the log is flushed every second
    await Bun.sleep(1_500)
    const line = readFileSync(proxyAccessLog(state), "utf8").split("\n").find((candidate) => candidate.includes(`GET ${path} `))
    expect(line).toContain(`traceparent=${traceparent}`)
  })
})
