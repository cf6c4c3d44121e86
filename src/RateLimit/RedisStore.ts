import { RedisClient } from "bun"
import { createHash, randomBytes } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { setRedisFallback } from "../Metrics.js"
import type { BucketStore, MemoryBucketStore, RateLimitPolicy } from "./RateLimiter.js"
import { makeSliceStore, SLICE_LIFETIME_MS, type SliceSource } from "./Slices.js"

const KEY_PREFIX = "catalogue:ratelimit:"

/**
 * One atomic step on a client's bucket (src/RateLimit/Slices.ts), timed by the server's clock so
 * replicas agree: refill, take back what a process returns, give it up to `want` tokens. The hash
 * holds `tokens` and `at`, and one `lent:<process>` field per process holding a slice
 * (`<count>@<until ms>`): the bucket never refills past the capacity less what is lent, so the
 * bucket and every slice together never hold more than the capacity. The hash expires when the
 * bucket would be full and nothing is lent: full buckets cost no memory.
 * Returns {granted, tokens left (as text: Lua numbers would be truncated)}.
 */
const SLICE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local lifetime = tonumber(ARGV[3])
local own = 'lent:' .. ARGV[4]
local want = tonumber(ARGV[5])
local held = tonumber(ARGV[6])
local returned = tonumber(ARGV[7])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local fields = redis.call('HGETALL', KEYS[1])
local tokens = nil
local at = nil
local others = 0
local lent_until = now
for i = 1, #fields, 2 do
  local name = fields[i]
  if name == 'tokens' then
    tokens = tonumber(fields[i + 1])
  elseif name == 'at' then
    at = tonumber(fields[i + 1])
  elseif name ~= own then
    local count, expires = string.match(fields[i + 1], '^([^@]+)@(.+)$')
    expires = tonumber(expires)
    if expires == nil or expires <= now then
      redis.call('HDEL', KEYS[1], name)
    else
      others = others + tonumber(count)
      lent_until = math.max(lent_until, expires)
    end
  end
end
local ceiling = math.max(0, capacity - others - held)
if tokens == nil or at == nil then
  tokens = capacity
else
  tokens = tokens + math.max(0, now - at) * per_ms
end
tokens = math.min(ceiling, tokens + returned)
local granted = math.max(0, math.min(want, math.floor(tokens)))
tokens = tokens - granted
if held + granted > 0 then
  redis.call('HSET', KEYS[1], own, (held + granted) .. '@' .. (now + lifetime))
  lent_until = math.max(lent_until, now + lifetime)
else
  redis.call('HDEL', KEYS[1], own)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((capacity - tokens) / per_ms), lent_until - now))
return {granted, tostring(tokens)}
`

type SliceReply = [number, string]

const SLICE_SCRIPT_SHA = createHash("sha1").update(SLICE_SCRIPT).digest("hex")

/** Every command's bound: a Redis that holds the connection and answers nothing must not hold requests. */
const COMMAND_TIMEOUT_MS = 250
const CONNECT_TIMEOUT_MS = 2_000
/** While the connection is down, one attempt a second to open it again. */
const RECONNECT_EVERY_MS = 1_000

/**
 * Bun's Redis client with the bounds the rate limiter needs: no offline queue (a command sent while
 * disconnected fails at once, and the limiter falls back to memory), a timeout on every command,
 * and reconnection at a steady pace for as long as Redis is away (the client's own backoff gives
 * up after its retries).
 */
const openConnection = (url: string) => {
  const client = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: CONNECT_TIMEOUT_MS })
  let connecting: Promise<void> | undefined
  const connect = () =>
    connecting ??= client.connect().finally(() => {
      connecting = undefined
    })
  const reconnect = setInterval(() => {
    if (!client.connected) connect().catch(() => undefined)
  }, RECONNECT_EVERY_MS)
  reconnect.unref()
  const send = (command: string, args: ReadonlyArray<string>): Promise<unknown> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer ${command} within ${COMMAND_TIMEOUT_MS} ms`)), COMMAND_TIMEOUT_MS)
    })
    return Promise.race([client.send(command, [...args]), timeout]).finally(() => clearTimeout(timer))
  }
  return {
    connect,
    connected: () => client.connected,
    send,
    /** the slice script by its hash; loaded with EVAL the first time a server does not know it */
    evalSlice: (key: string, args: ReadonlyArray<string>) =>
      send("EVALSHA", [SLICE_SCRIPT_SHA, "1", key, ...args]).catch((error: unknown) =>
        String(error).includes("NOSCRIPT") ? send("EVAL", [SLICE_SCRIPT, "1", key, ...args]) : Promise.reject(error)
      ) as Promise<SliceReply>,
    close: () => {
      clearInterval(reconnect)
      client.close()
    }
  }
}

/**
 * Buckets in Redis, shared by every replica, spent in slices (src/RateLimit/Slices.ts). While
 * Redis does not answer, requests are limited by `fallback` (this process's memory) rather than
 * refused or let through unlimited.
 */
export const makeRedisStore = (url: Redacted.Redacted<string>, policy: RateLimitPolicy, fallback: MemoryBucketStore, maxClients: number) =>
  Effect.gen(function*() {
    const redis = yield* Effect.acquireRelease(
      Effect.sync(() => openConnection(Redacted.value(url))),
      (redis) => Effect.sync(redis.close)
    )
    // Commands are not queued while disconnected (they fall back at once), so connect first.
    yield* Effect.tryPromise(redis.connect).pipe(
      Effect.timeout("3 seconds"),
      Effect.catch((error) =>
        Effect.andThen(
          Effect.sync(() => setRedisFallback(true)),
          Effect.logWarning("rate limit: Redis is not reachable at start; limiting in memory until it is", String(error))
        ))
    )
    let lastWarningMs = 0
    const warn = (cause: unknown) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (now - lastWarningMs < 10_000) return Effect.void
        lastWarningMs = now
        return Effect.logWarning("rate limit: Redis did not answer; limiting in memory meanwhile", String(cause))
      })
    const perMs = policy.capacity / (policy.windowSeconds * 1000)
    // this process's name in the buckets' `lent:` fields
    const processId = randomBytes(8).toString("hex")
    const source: SliceSource = {
      ready: redis.connected,
      take: (key, want, held, returned) =>
        redis.evalSlice(KEY_PREFIX + key, [policy.capacity, perMs, SLICE_LIFETIME_MS, processId, want, held, returned].map(String))
          .then(([granted, tokens]) => ({ granted: Number(granted), bucket: Number(tokens) }))
    }
    const slices = makeSliceStore({ policy, source, fallback, maxClients, warn })
    // what is left of slices of clients gone idle goes back to their buckets even when no request comes
    yield* Effect.acquireRelease(
      Effect.sync(() => setInterval(slices.sweep, SLICE_LIFETIME_MS).unref()),
      (timer) => Effect.sync(() => clearInterval(timer))
    )
    const trackedClients = Effect.tryPromise(async () => {
      let cursor = "0"
      let count = 0
      do {
        const [next, keys] = await redis.send("SCAN", [cursor, "MATCH", `${KEY_PREFIX}*`, "COUNT", "1000"]) as [string, Array<string>]
        cursor = next
        count += keys.length
      } while (cursor !== "0")
      return count
    }).pipe(Effect.catch(() => fallback.trackedClients))

    return { take: slices.take, takeAt: slices.takeAt, giveBack: slices.giveBack, trackedClients } satisfies BucketStore
  })
