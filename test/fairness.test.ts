// runs alone: one client's p99 under another's load against its p99 alone
/**
 * Fairness (docs/edge.md, "Requests in flight"): one client searching as fast as its bucket
 * allows must not take the machine from another. The measurement: test/support/fairness.ts
 * (the bench's `--fairness` runs the same over a catalogue).
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { onPostgres } from "./support/database.js"
import { describeWhen, ON_POSTGRES_ONLY } from "./support/skips.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { browsePaths, describeFairness, heavySearches, measureFairness, percentile } from "./support/fairness.js"
import type { TestServer } from "./support/server.js"

// The embedded database runs every query on the process's one thread: a search there holds every
// client up, whatever the edge does. The bound is for PostgreSQL (docs/edge.md, "Requests in flight").
describeWhen(onPostgres, ON_POSTGRES_ONLY)("one client at its full rate and another client's latency", () => {
  let server: TestServer
  beforeAll(async () => {
    // TRUST_PROXY=1: the test is the proxy, each client its own X-Forwarded-For; no response cache: every request does its work
    server = await startEdgeServer({ ...REAL_EDGE_ENV, TRUST_PROXY: "1", CACHE_TTL_SECONDS: "0" })
  }, 60_000)
  afterAll(() => server.stop())

  test("B gets no 5xx and B's p99 under A's heavy searches stays within 2x of B's p99 alone", async () => {
    const result = await measureFairness({
      baseUrl: server.baseUrl,
      browse: await browsePaths(server.baseUrl),
      searches: heavySearches,
      // short turns, many: the machine's drift (other tests, other processes) falls on both
      loadedTurns: 4,
      aloneMs: 1_500,
      loadedMs: 3_000
    })
    console.log(`fairness: ${describeFairness(result)}`)
    expect(result.bFailures).toEqual([])
    // A was served all along; what waited for its turn was answered, not timed out
    expect(result.aStatuses[200] ?? 0).toBeGreaterThan(0)
    expect(Object.keys(result.aStatuses).filter((status) => status !== "200" && status !== "429")).toEqual([])
    expect(percentile(result.loaded, 99)).toBeLessThanOrEqual(2 * percentile(result.alone, 99))
  }, 60_000)
})
