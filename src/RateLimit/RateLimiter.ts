import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig } from "../Config.js"
import { LruMap } from "../Cache/Lru.js"

/** A token bucket: `capacity` tokens, refilled evenly over `windowSeconds` (360 per 60 s). */
export interface RateLimitPolicy {
  readonly capacity: number
  readonly windowSeconds: number
}

/** A bucket just after a request tried to take one token. */
export interface BucketState {
  readonly allowed: boolean
  /** Tokens left after the take; fractional while refilling. */
  readonly tokens: number
  readonly nowMs: number
}

/** Where buckets live: process memory, or Redis shared by replicas (src/RateLimit/Slices.ts). */
export interface BucketStore {
  /** The take, waiting for I/O where the store needs it (the pipeline). */
  readonly take: (key: string) => Effect.Effect<BucketState>
  /**
   * The same take at once, without I/O (the front door), or undefined where it would need I/O:
   * buckets in Redis when this process holds no slice of the client's tokens.
   */
  readonly takeAt: (key: string, nowMs: number) => BucketState | undefined
  /** Returns one token taken for a request that turned out free (a 304); no answer awaited. */
  readonly giveBack: (key: string) => void
  /** How many clients have a bucket now (memory is bounded). */
  readonly trackedClients: Effect.Effect<number>
}

/** Buckets in process memory: every take answers at once. */
export interface MemoryBucketStore extends BucketStore {
  readonly takeAt: (key: string, nowMs: number) => BucketState
}

/** What one request got, in the terms of the response headers. */
export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly windowSeconds: number
  readonly remaining: number
  /** Whole seconds until one more token is back: 0 when the bucket is full, at least 1 otherwise. */
  readonly secondsUntilToken: number
  /** Epoch seconds when the bucket is full again. */
  readonly resetEpochSeconds: number
}

export const tokensPerMs = (policy: RateLimitPolicy) => policy.capacity / (policy.windowSeconds * 1000)

export const decide = (policy: RateLimitPolicy, state: BucketState): RateLimitDecision => {
  const rate = tokensPerMs(policy)
  const remaining = Math.max(0, Math.floor(state.tokens + 1e-9))
  const full = state.tokens >= policy.capacity - 1e-9
  const msUntilToken = (remaining + 1 - state.tokens) / rate
  const msUntilFull = Math.max(0, (policy.capacity - state.tokens) / rate)
  return {
    allowed: state.allowed,
    limit: policy.capacity,
    windowSeconds: policy.windowSeconds,
    remaining,
    secondsUntilToken: full ? 0 : Math.max(1, Math.ceil(msUntilToken / 1000 - 1e-9)),
    resetEpochSeconds: Math.ceil((state.nowMs + msUntilFull) / 1000)
  }
}

/**
 * Buckets in process memory, bounded: a bucket is dropped once it has refilled (a fresh
 * bucket is the same thing), and past `maxClients` the longest idle bucket is dropped first.
 */
export const makeMemoryStore = (policy: RateLimitPolicy, maxClients: number): MemoryBucketStore => {
  const rate = tokensPerMs(policy)
  const buckets = new LruMap<{ tokens: number; atMs: number }>()
  const refilled = (bucket: { tokens: number; atMs: number }, nowMs: number) =>
    Math.min(policy.capacity, bucket.tokens + Math.max(0, nowMs - bucket.atMs) * rate)

  /** Drops refilled buckets from the idle end (stopping at the first that is not), and the oldest while at the cap. */
  const sweep = (nowMs: number) => {
    for (let oldest = buckets.oldestEntry(); oldest !== undefined; oldest = buckets.oldestEntry()) {
      const [key, bucket] = oldest
      if (buckets.size < maxClients && refilled(bucket, nowMs) < policy.capacity) break
      buckets.delete(key)
    }
  }

  const takeAt = (key: string, nowMs: number): BucketState => {
    const bucket = buckets.peek(key)
    let tokens = bucket === undefined ? policy.capacity : refilled(bucket, nowMs)
    if (bucket !== undefined) buckets.delete(key)
    sweep(nowMs)
    const allowed = tokens >= 1
    if (allowed) tokens -= 1
    buckets.set(key, { tokens, atMs: nowMs })
    return { allowed, tokens, nowMs }
  }

  const giveBack = (key: string) => {
    const bucket = buckets.peek(key)
    if (bucket !== undefined) bucket.tokens = Math.min(policy.capacity, bucket.tokens + 1)
  }

  return {
    take: (key) => Effect.map(Clock.currentTimeMillis, (nowMs) => takeAt(key, nowMs)),
    takeAt,
    giveBack,
    trackedClients: Effect.sync(() => buckets.size)
  }
}

/** The rate limiter: one bucket per client key. */
export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    readonly policy: RateLimitPolicy
    readonly take: (clientKey: string) => Effect.Effect<RateLimitDecision>
    /** take without Effect, on the wall clock; undefined when this take needs I/O (no slice of a Redis bucket in hand). */
    readonly takeNow: (clientKey: string) => RateLimitDecision | undefined
    /** A 304 is free: the token its request took goes back. */
    readonly giveBack: (clientKey: string) => void
    readonly trackedClients: Effect.Effect<number>
  }
>()("catalogue/RateLimiter") {
  static readonly fromStore = (policy: RateLimitPolicy, store: BucketStore) =>
    RateLimiter.of({
      policy,
      take: (key) => Effect.map(store.take(key), (state) => decide(policy, state)),
      takeNow: (key) => {
        const state = store.takeAt(key, Date.now())
        return state === undefined ? undefined : decide(policy, state)
      },
      giveBack: store.giveBack,
      trackedClients: store.trackedClients
    })

  static readonly memory = (policy: RateLimitPolicy, maxClients: number) =>
    Layer.sync(RateLimiter, () => RateLimiter.fromStore(policy, makeMemoryStore(policy, maxClients)))

  /** Memory by default; Redis when RATE_LIMIT_REDIS_URL is set (falling back to memory while Redis fails). */
  static readonly layer = Layer.effect(
    RateLimiter,
    Effect.gen(function*() {
      const { rateLimit } = yield* AppConfig
      const policy = { capacity: rateLimit.capacity, windowSeconds: rateLimit.windowSeconds }
      const memory = makeMemoryStore(policy, rateLimit.maxClients)
      if (Option.isNone(rateLimit.redisUrl)) return RateLimiter.fromStore(policy, memory)
      // loaded only when configured
      const { makeRedisStore } = yield* Effect.promise(() => import("./RedisStore.js"))
      const redis = yield* makeRedisStore(rateLimit.redisUrl.value, policy, memory, rateLimit.maxClients)
      yield* Effect.logInfo("rate limit: buckets shared through Redis")
      return RateLimiter.fromStore(policy, redis)
    })
  )
}

/** The rate-limit header fields for one decision. */
export const rateLimitHeaders = (decision: RateLimitDecision): Record<string, string> => {
  const headers: Record<string, string> = {
    "ratelimit-policy": `"ip";q=${decision.limit};w=${decision.windowSeconds}`,
    ratelimit: `"ip";r=${decision.remaining};t=${decision.secondsUntilToken}`,
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": String(decision.resetEpochSeconds)
  }
  if (!decision.allowed) headers["retry-after"] = String(Math.max(1, decision.secondsUntilToken))
  return headers
}
