import * as Effect from "effect/Effect"
import { LruMap } from "../Cache/Lru.js"
import { setRedisFallback } from "../Metrics.js"
import { type BucketState, type MemoryBucketStore, type RateLimitPolicy, tokensPerMs } from "./RateLimiter.js"

/**
 * How long a slice may be spent after it was asked for. Redis counts a slice's tokens as lent to
 * the process for as long (from its own, later, clock), so the bucket never refills over them.
 */
export const SLICE_LIFETIME_MS = 1000
/** After Redis failed to answer, the process limits in memory this long before it asks again. */
const FALLBACK_MS = 1000

/**
 * The most tokens a process holds for one client: a twentieth of the bucket, and no more than 16
 * or what the bucket refills in a tenth of a second, whichever is more (16 at 360 per 60 s; larger
 * only for policies of over 160 a second, where a slice of 16 would mean a command every few
 * hundred microseconds for a client at its rate).
 */
export const largestSlice = (policy: RateLimitPolicy) => {
  const tenthOfASecond = Math.ceil(policy.capacity / policy.windowSeconds / 10)
  return Math.max(1, Math.min(Math.floor(policy.capacity / 20), Math.max(16, tenthOfASecond)))
}

/** Redis's answer to one take. */
export interface SliceGrant {
  readonly granted: number
  /** tokens left in the shared bucket after the grant, beside the slices processes hold */
  readonly bucket: number
}

/** The shared buckets: one atomic step a call (src/RateLimit/RedisStore.ts). */
export interface SliceSource {
  /** whether commands can be sent now (connected) */
  readonly ready: () => boolean
  /**
   * Takes up to `want` tokens of the client's bucket for this process. `held` is what it still holds
   * of earlier slices: from then on Redis counts `held + granted` as lent to it for SLICE_LIFETIME_MS.
   * `returned` goes back into the bucket (what was left of a slice past its lifetime).
   */
  readonly take: (key: string, want: number, held: number, returned: number) => Promise<SliceGrant>
}

/** What asking Redis gave the request that asked: its token or refusal, none (a top-up), or a failure. */
type Asked = BucketState | undefined | { readonly failed: unknown }

/** One client's tokens in this process. */
interface ClientSlice {
  /** tokens in hand, spendable until expiresAtMs */
  tokens: number
  /** what Redis counts as lent to this process: tokens in hand never exceed it */
  lent: number
  expiresAtMs: number
  /** the next slice's size: 1 at first, doubled while slices run out within half a lifetime */
  size: number
  lastAskedAtMs: number
  /** the shared bucket as last seen, and when */
  bucket: number
  bucketAtMs: number
  /** Redis had no token: refused here until then without asking again */
  refusedUntilMs: number
  /** a take on its way to Redis (at most one a client) */
  pending: Promise<Asked> | undefined
  /** whether the client's last token came from this slice (else from the memory fallback) */
  fromSlice: boolean
}

const freshSlice = (): ClientSlice => ({
  tokens: 0,
  lent: 0,
  expiresAtMs: 0,
  size: 1,
  lastAskedAtMs: Number.NEGATIVE_INFINITY,
  bucket: 0,
  bucketAtMs: 0,
  refusedUntilMs: 0,
  pending: undefined,
  fromSlice: false
})

/**
 * Buckets shared through Redis, spent without I/O: each process holds, per client, a slice of the
 * client's tokens taken from its bucket in one atomic step, and spends it at once (the front door).
 * A client with no token in hand is asked for in the pipeline; one past its limit is refused here,
 * without asking Redis again, until a token can be back. A slice running low is topped up ahead,
 * without holding up the request that found it low. docs/edge.md, "Buckets in Redis".
 *
 * While Redis does not answer, requests are limited by `fallback` (this process's memory) rather
 * than refused or let through unlimited.
 */
export const makeSliceStore = (options: {
  readonly policy: RateLimitPolicy
  readonly source: SliceSource
  readonly fallback: MemoryBucketStore
  readonly maxClients: number
  /** says once in a while that Redis did not answer */
  readonly warn: (cause: unknown) => Effect.Effect<void>
}) => {
  const { policy, source, fallback, maxClients, warn } = options
  const rate = tokensPerMs(policy)
  const largest = largestSlice(policy)
  const clients = new LruMap<ClientSlice>()
  let fallbackUntilMs = 0
  let fallbackActive = false

  const inFallback = (active: boolean) => {
    if (active === fallbackActive) return
    fallbackActive = active
    setRedisFallback(active)
  }

  const inHand = (slice: ClientSlice, nowMs: number) => (nowMs < slice.expiresAtMs ? slice.tokens : 0)

  /** The bucket as this process sees it: the shared bucket as last seen, refilled since, and its slice. */
  const view = (slice: ClientSlice, nowMs: number, allowed: boolean): BucketState => {
    const shared = Math.min(policy.capacity, slice.bucket + Math.max(0, nowMs - slice.bucketAtMs) * rate)
    return { allowed, tokens: Math.min(policy.capacity, shared + inHand(slice, nowMs)), nowMs }
  }

  /** A token from the slice, the refusal remembered, or undefined: Redis must be asked. */
  const spend = (slice: ClientSlice, nowMs: number): BucketState | undefined => {
    if (inHand(slice, nowMs) >= 1) {
      slice.tokens -= 1
      slice.fromSlice = true
      return view(slice, nowMs, true)
    }
    return nowMs < slice.refusedUntilMs ? view(slice, nowMs, false) : undefined
  }

  const fromMemory = (key: string, nowMs: number): BucketState => {
    inFallback(true)
    const slice = clients.peek(key)
    if (slice !== undefined) slice.fromSlice = false
    return fallback.takeAt(key, nowMs)
  }

  /**
   * Asks Redis for a slice. The request that asks (`spendOne`) takes its token from the answer
   * before anyone else; when Redis does not answer, memory limits for a while.
   */
  const ask = (key: string, slice: ClientSlice, nowMs: number, spendOne: boolean): Promise<Asked> => {
    const expired = nowMs >= slice.expiresAtMs
    const held = expired ? 0 : slice.tokens
    const returned = expired ? slice.tokens : 0
    if (expired) slice.tokens = 0
    if (nowMs - slice.lastAskedAtMs < SLICE_LIFETIME_MS / 2) slice.size = Math.min(largest, slice.size * 2)
    else if (returned > 0) slice.size = Math.max(1, slice.size >> 1)
    slice.lastAskedAtMs = nowMs
    const want = Math.max(0, Math.min(slice.size, largest - held))
    const pending = source.take(key, want, held, returned).then(
      (grant) => {
        const answeredMs = Date.now()
        slice.lent = held + grant.granted
        slice.tokens = Math.min(slice.tokens + grant.granted, slice.lent)
        // counted from the asking: Redis lends from when it answered, which came later
        slice.expiresAtMs = nowMs + SLICE_LIFETIME_MS
        slice.bucket = grant.bucket
        slice.bucketAtMs = answeredMs
        // remembered for a lifetime at most: a slice another process gives back may be taken by then
        slice.refusedUntilMs = grant.granted === 0 && want > 0
          ? nowMs + Math.min(SLICE_LIFETIME_MS, (1 - grant.bucket) / rate)
          : 0
        slice.pending = undefined
        inFallback(false)
        return spendOne ? spend(slice, answeredMs) : undefined
      },
      (cause: unknown) => {
        slice.pending = undefined
        fallbackUntilMs = Date.now() + FALLBACK_MS
        return { failed: cause }
      }
    )
    slice.pending = pending
    return pending
  }

  const runningLow = (slice: ClientSlice, nowMs: number) =>
    slice.pending === undefined && slice.size >= 2 && slice.tokens <= slice.size / 2 && nowMs >= slice.refusedUntilMs

  /**
   * Tops up a slice running low, without waiting for it: once the request that spent the token is
   * decided, so that a token its 304 gave back is counted in what the process says it holds.
   */
  const topUp = (key: string, slice: ClientSlice, nowMs: number) => {
    if (!runningLow(slice, nowMs)) return
    queueMicrotask(() => {
      const now = Date.now()
      if (runningLow(slice, now) && clients.peek(key) === slice) void ask(key, slice, now, false)
    })
  }

  /**
   * Forgets clients idle for a slice's lifetime (and the longest idle past `maxClients`), giving
   * back what was left of their slices: a client that moved to another process finds its tokens
   * in its bucket again.
   */
  const sweep = (nowMs: number) => {
    for (let oldest = clients.oldestEntry(); oldest !== undefined; oldest = clients.oldestEntry()) {
      const [key, slice] = oldest
      const idle = slice.pending === undefined && nowMs >= slice.expiresAtMs && nowMs >= slice.refusedUntilMs
      if (!idle && clients.size <= maxClients) break
      clients.delete(key)
      if (slice.pending === undefined && slice.tokens > 0) source.take(key, 0, 0, slice.tokens).catch(() => undefined)
    }
  }

  const takeAt = (key: string, nowMs: number): BucketState | undefined => {
    if (nowMs < fallbackUntilMs) return fromMemory(key, nowMs)
    // not connected: the pipeline's take says so in the log and falls back
    if (!source.ready()) return undefined
    sweep(nowMs)
    const slice = clients.get(key)
    if (slice === undefined) return undefined
    const state = spend(slice, nowMs)
    if (state?.allowed === true) topUp(key, slice, nowMs)
    return state
  }

  const fallBack = (key: string, cause: unknown) =>
    Effect.suspend(() => {
      fallbackUntilMs = Date.now() + FALLBACK_MS
      return Effect.andThen(warn(cause), Effect.sync(() => fromMemory(key, Date.now())))
    })

  const take = (key: string): Effect.Effect<BucketState> =>
    Effect.suspend(() => {
      const nowMs = Date.now()
      if (nowMs < fallbackUntilMs) return Effect.succeed(fromMemory(key, nowMs))
      if (!source.ready()) return fallBack(key, "Redis is not connected")
      const known = takeAt(key, nowMs)
      if (known !== undefined) return Effect.succeed(known)
      let slice = clients.get(key)
      if (slice === undefined) {
        slice = freshSlice()
        clients.set(key, slice)
      }
      // a take already on its way: its answer may hold a token for this request too
      const waited = slice.pending
      if (waited !== undefined) return Effect.flatMap(Effect.promise(() => waited), () => take(key))
      return Effect.flatMap(Effect.promise(() => ask(key, slice, nowMs, true)), (asked) => {
        if (asked === undefined) return take(key)
        return "failed" in asked ? fallBack(key, asked.failed) : Effect.succeed(asked)
      })
    })

  const giveBack = (key: string) => {
    const slice = clients.peek(key)
    if (slice === undefined || !slice.fromSlice) return fallback.giveBack(key)
    if (Date.now() < slice.expiresAtMs) slice.tokens = Math.min(slice.tokens + 1, slice.lent)
  }

  return {
    take,
    takeAt,
    giveBack,
    sweep: () => sweep(Date.now())
  }
}
