import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { fullGC } from "bun:jsc"
import { AppConfig } from "./Config.js"
import { add, forcedCollections } from "./Metrics.js"

const CHECK_EVERY_MS = 1000

/**
 * A soft memory limit, as Go's GOMEMLIMIT is one: JavaScriptCore lets its heap grow to ~2.5x the
 * live data between collections under load (~350-400 MiB at 8,000 req/s, ~60 MiB live). While
 * resident memory is above MEMORY_LIMIT_MIB, a full collection runs once a second, which keeps
 * the peak near the limit. JavaScriptCore's own `fullGC` pauses ~25-35 ms under load; `Bun.gc(true)`
 * (which also asks the native allocator to clean up) ~50 ms for a higher peak (test/bench/README.md).
 */
export const MemoryGuardLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const { memoryLimitMiB } = yield* AppConfig
    if (memoryLimitMiB === 0) return
    const limitBytes = memoryLimitMiB * 1024 * 1024
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        setInterval(() => {
          if (process.memoryUsage.rss() <= limitBytes) return
          fullGC()
          add(forcedCollections)
        }, CHECK_EVERY_MS).unref()
      ),
      (timer) => Effect.sync(() => clearInterval(timer))
    )
  })
)
