import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { fullGC } from "bun:jsc"
import { AppConfig, type AppConfigValues } from "./Config.js"
import * as Context from "effect/Context"

const CHECK_EVERY_MS = 1000

export const forcedCollections = Metric.counter("catalogue.memory.forced_collections", {
  description: "Full garbage collections run because the JS heap was above MEMORY_LIMIT_MIB"
})
// present from the start, at 0: an idle process shows that it forces none
forcedCollections.updateUnsafe(0, Context.empty())

/**
 * The limit the guard applies, in MiB (0: none). With the embedded database (no DATABASE_URL)
 * the guard is off whatever MEMORY_LIMIT_MIB says: PGlite's WebAssembly memory counts in the JS
 * heap (~400 MiB at idle) and no collection can free it.
 */
export const guardedHeapLimitMiB = (config: Pick<AppConfigValues, "databaseUrl" | "memoryLimitMiB">) =>
  Option.isSome(config.databaseUrl) ? config.memoryLimitMiB : 0

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
          forcedCollections.updateUnsafe(1, Context.empty())
        }, CHECK_EVERY_MS).unref()
      ),
      (timer) => Effect.sync(() => clearInterval(timer))
    )
  })
)
