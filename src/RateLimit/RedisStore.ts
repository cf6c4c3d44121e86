import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { Redis } from "ioredis"
import { setRedisFallback } from "../Metrics.js"
import type { BucketState, BucketStore, RateLimitPolicy } from "./RateLimiter.js"

const KEY_PREFIX = "catalogue:ratelimit:"

/**
 * One atomic token-bucket step on the Redis server, timed by the server's clock so replicas
 * agree. The hash expires when the bucket would be full again: full buckets cost no memory.
 * Returns {allowed, tokens (as text: Lua numbers would be truncated), now in ms}.
 */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
else
  tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((capacity - tokens) / per_ms)))
return {allowed, tostring(tokens), tostring(now)}
`

/** One token back into an existing bucket, never above capacity. */
const GIVE_BACK_SCRIPT = `
local capacity = tonumber(ARGV[1])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
if tokens ~= nil then
  redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(capacity, tokens + 1)))
end
return 1
`

type TakeReply = [number, string, string]

/**
 * Buckets in Redis, shared by every replica. While Redis does not answer, requests are
 * limited by `fallback` (this process's memory) rather than refused or let through unlimited.
 */
export const makeRedisStore = (url: Redacted.Redacted<string>, policy: RateLimitPolicy, fallback: BucketStore) =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const redis = new Redis(Redacted.value(url), {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          commandTimeout: 250,
          connectTimeout: 2_000
        })
        // Connection errors are reported per command; an unhandled 'error' event would crash.
        redis.on("error", () => undefined)
        redis.defineCommand("takeToken", { numberOfKeys: 1, lua: TAKE_SCRIPT })
        redis.defineCommand("giveToken", { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT })
        return redis
      }),
      (redis) => Effect.promise(() => redis.quit().catch(() => redis.disconnect()))
    )
    // Commands are not queued while disconnected (they fall back at once), so connect first.
    yield* Effect.tryPromise(() => client.connect()).pipe(
      Effect.timeout("3 seconds"),
      Effect.catch((error) =>
        Effect.andThen(
          Effect.sync(() => setRedisFallback(true)),
          Effect.logWarning("rate limit: Redis is not reachable at start; limiting in memory until it is", String(error))
        ))
    )
    const run = client as unknown as {
      takeToken: (key: string, capacity: number, perMs: number) => Promise<TakeReply>
      giveToken: (key: string, capacity: number) => Promise<number>
    }
    let lastWarningMs = 0
    const warn = (cause: unknown) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (now - lastWarningMs < 10_000) return Effect.void
        lastWarningMs = now
        return Effect.logWarning("rate limit: Redis did not answer; limiting in memory meanwhile", String(cause))
      })
    const perMs = policy.capacity / (policy.windowSeconds * 1000)

    const take = (key: string): Effect.Effect<BucketState> =>
      Effect.tryPromise(() => run.takeToken(KEY_PREFIX + key, policy.capacity, perMs)).pipe(
        Effect.map(([allowed, tokens, now]): BucketState => {
          setRedisFallback(false)
          return { allowed: allowed === 1, tokens: Number(tokens), nowMs: Number(now) }
        }),
        Effect.catch((error) => {
          setRedisFallback(true)
          return Effect.andThen(warn(error.cause), fallback.take(key))
        })
      )

    const trackedClients = Effect.tryPromise(async () => {
      let cursor = "0"
      let count = 0
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${KEY_PREFIX}*`, "COUNT", 1000)
        cursor = next
        count += keys.length
      } while (cursor !== "0")
      return count
    }).pipe(Effect.catch(() => fallback.trackedClients))

    const giveBack = (key: string) => {
      run.giveToken(KEY_PREFIX + key, policy.capacity).catch(() => fallback.giveBack(key))
    }

    return { take, giveBack, trackedClients } satisfies BucketStore
  })
