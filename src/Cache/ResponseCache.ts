import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../Config.js"
import { meterResponseCache } from "../Metrics.js"
import type { Freshness } from "./Freshness.js"
import { LruMap } from "./Lru.js"
import type { Representation } from "./Representation.js"

export interface ResponseCacheSettings {
  readonly ttlSeconds: number
  readonly maxEntries: number
  readonly maxBytes: number
}

interface Entry {
  readonly representation: Representation
  readonly expiresAtMs: number
  bytes: number
}

/** What an entry takes: its key (ASCII: Routes.meaningOf encodes it), every form of its body and its next cursor. */
const sizeOf = (key: string, representation: Representation) =>
  key.length + representation.body.length + (representation.coded.br?.length ?? 0) + (representation.coded.gzip?.length ?? 0) +
  (representation.nextCursor?.length ?? 0)

/**
 * The in-process cache of final public response bytes, keyed by what a request means (the path
 * and the query parameters its handler reads, one canonical spelling: src/Http/Routes.ts).
 * Bounded by entries and by bytes (least recently used dropped first); entries live
 * `ttlSeconds`, or less where the route's freshness says (src/Cache/Freshness.ts); 0 turns it off. Only a public endpoint's 200 is ever stored: the edge (src/Http/Edge.ts) decides by the route matched.
 */
export class ResponseCache extends Context.Service<
  ResponseCache,
  {
    readonly enabled: boolean
    /** the fresh entry of `key` at `nowMs`, if any */
    readonly lookupAt: (key: string, nowMs: number) => Representation | undefined
    /** keeps a public 200's representation from `nowMs` on */
    readonly storeAt: (key: string, representation: Representation, nowMs: number, freshness: Freshness) => void
    /** A cached representation gained a compressed form: count its bytes. */
    readonly grew: (key: string, representation: Representation, addedBytes: number) => void
    readonly stats: () => { readonly entries: number; readonly bytes: number }
  }
>()("catalogue/ResponseCache") {
  static readonly make = (settings: ResponseCacheSettings) => {
    const entries = new LruMap<Entry>()
    let totalBytes = 0
    const remove = (key: string, entry: Entry) => {
      entries.delete(key)
      totalBytes -= entry.bytes
    }
    const shrinkTo = (maxEntries: number, maxBytes: number) => {
      for (let oldest = entries.oldestEntry(); oldest !== undefined; oldest = entries.oldestEntry()) {
        if (entries.size <= maxEntries && totalBytes <= maxBytes) break
        remove(oldest[0], oldest[1])
      }
    }
    const lookupAt = (key: string, nowMs: number) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expiresAtMs > nowMs) return entry.representation
      remove(key, entry)
      return undefined
    }
    const grew = (key: string, representation: Representation, addedBytes: number) => {
      const entry = entries.peek(key)
      if (entry === undefined || entry.representation !== representation || addedBytes === 0) return
      entry.bytes += addedBytes
      totalBytes += addedBytes
      if (totalBytes > settings.maxBytes) shrinkTo(settings.maxEntries, settings.maxBytes)
    }
    const storeAt = (key: string, representation: Representation, nowMs: number, freshness: Freshness) => {
      const bytes = sizeOf(key, representation)
      const ttlSeconds = Math.min(settings.ttlSeconds, freshness.maxAgeSeconds)
      // One body may take at most an eighth of the budget, so a few big pages cannot flush the rest.
      if (ttlSeconds <= 0 || bytes > settings.maxBytes / 8 || bytes > freshness.maxStoredBytes) return
      const previous = entries.get(key)
      if (previous !== undefined) remove(key, previous)
      shrinkTo(settings.maxEntries - 1, settings.maxBytes - bytes)
      entries.set(key, { representation, expiresAtMs: nowMs + ttlSeconds * 1000, bytes })
      totalBytes += bytes
    }
    return ResponseCache.of({
      enabled: settings.ttlSeconds > 0,
      lookupAt,
      storeAt,
      grew,
      stats: () => ({ entries: entries.size, bytes: totalBytes })
    })
  }

  /** The process's cache, its size in the metrics. */
  static readonly layer = Layer.effect(
    ResponseCache,
    Effect.gen(function*() {
      const cache = ResponseCache.make((yield* AppConfig).cache)
      yield* Effect.acquireRelease(Effect.sync(() => meterResponseCache(cache.stats)), (remove) => Effect.sync(remove))
      return cache
    })
  )
}
