import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { fullGC } from "bun:jsc"
import { AppConfig, guardedHeapLimitMiB } from "./Config.js"
import { add, forcedCollections } from "./Metrics.js"

const CHECK_EVERY_MS = 1000

/** The JS heap as JavaScriptCore counts it: its objects and the memory they hold (strings, buffers). */
const heapUsedBytes = () => process.memoryUsage().heapUsed

/**
 * A soft limit on the JS heap, as Go's GOMEMLIMIT is one: JavaScriptCore lets its heap grow to
 * ~2.5x the live data between collections under load. While the heap is above MEMORY_LIMIT_MIB,
 * a full collection runs once a second, which keeps the peak near the limit. JavaScriptCore's own
 * `fullGC` pauses ~25-35 ms under load; `Bun.gc(true)` (which also asks the native allocator to
 * clean up) ~50 ms for a higher peak (test/bench/README.md).
 */
export const MemoryGuardLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const limitMiB = guardedHeapLimitMiB(yield* AppConfig)
    if (limitMiB === 0) return
    const limitBytes = limitMiB * 1024 * 1024
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        setInterval(() => {
          if (heapUsedBytes() <= limitBytes) return
          fullGC()
          add(forcedCollections)
        }, CHECK_EVERY_MS).unref()
      ),
      (timer) => Effect.sync(() => clearInterval(timer))
    )
  })
)
