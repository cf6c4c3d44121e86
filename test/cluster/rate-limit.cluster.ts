import { afterAll, describe, expect, test } from "bun:test"
import { RedisClient } from "bun"
import { redisUrl, replicaUrl, type ReplicaSpec } from "../../cluster/Cluster.js"
import { cluster, get } from "./support.js"

const state = cluster()
const CAPACITY = 360
const PER_SECOND = 6
/** The most a replica holds for one client (src/RateLimit/Slices.ts, largestSlice at 360 per 60 s). */
const LARGEST_SLICE = 16

const redis = new RedisClient(redisUrl(state))
afterAll(() => redis.close())

/** Rate-limit scripts Redis has run so far. */
const scriptCalls = async () => {
  const info = String(await redis.send("INFO", ["commandstats"]))
  return [...info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[2]), 0)
}

/**
 * One client's requests straight to the replicas it is given, round robin, three at a time, for
 * `ms` (TRUST_PROXY=2: the client is the second address from the right of X-Forwarded-For).
 */
const spread = async (client: string, replicas: ReadonlyArray<ReplicaSpec>, ms: number) => {
  const statuses: Array<number> = []
  let n = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: 3 }, async () => {
    while (performance.now() - started < ms) {
      const replica = replicas[n++ % replicas.length]!
      const answer = await get(replicaUrl(replica), "/v1", { from: "127.0.8.1", headers: { "x-forwarded-for": `${client}, 127.0.0.1` } })
      statuses.push(answer.status)
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { statuses, seconds, allowed: statuses.filter((status) => status === 200).length }
}

describe("a client's bucket in Redis, spent in slices by three replicas (360 per 60 s)", () => {
  test("round robin over the three: never more than one bucket gives, not less than its capacity; 429s mostly at the door", async () => {
    const before = await scriptCalls()
    const { statuses, seconds, allowed } = await spread("198.51.100.201", state.replicas, 3_000)
    const calls = (await scriptCalls()) - before
    const refused = statuses.filter((status) => status === 429).length
    console.log(
      `round robin over 3 replicas for ${seconds.toFixed(2)} s: ${statuses.length} requests, ${allowed} allowed ` +
        `(one bucket gives ${CAPACITY} + ${(PER_SECOND * seconds).toFixed(1)}), ${refused} refused, ${calls} Redis commands`
    )
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([])
    // the stated bound: no excess over one bucket across replicas
    expect(allowed).toBeLessThanOrEqual(CAPACITY + Math.floor(PER_SECOND * seconds))
    // what slices strand is spent by the next requests or given back within a second
    expect(allowed).toBeGreaterThanOrEqual(CAPACITY)
    expect(refused).toBeGreaterThan(0)
    // a refusal is remembered at the door until a token is due: far fewer commands than requests
    expect(calls).toBeLessThan(statuses.length / 4)
  }, 30_000)

  test("a client that leaves a replica holding a slice gets it back from the others: not starved", async () => {
    const client = "198.51.100.202"
    const [first, ...others] = state.replicas
    // long enough on the first for its slice to grow to the largest
    const before = await spread(client, [first!], 100)
    const after = await spread(client, others, 3_000)
    const allowed = before.allowed + after.allowed
    const seconds = before.seconds + after.seconds
    console.log(
      `${before.allowed} on one replica, then ${after.allowed} on the two others in ${after.seconds.toFixed(2)} s: ` +
        `${allowed} allowed (one bucket gives ${CAPACITY} + ${(PER_SECOND * seconds).toFixed(1)}; at most ${LARGEST_SLICE} held by the one left)`
    )
    expect(before.allowed).toBeGreaterThan(LARGEST_SLICE)
    expect(allowed).toBeLessThanOrEqual(CAPACITY + Math.floor(PER_SECOND * seconds))
    expect(allowed).toBeGreaterThanOrEqual(CAPACITY)
  }, 30_000)
})
