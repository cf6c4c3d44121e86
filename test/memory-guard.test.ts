import { describe, expect, test } from "bun:test"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { AppConfig } from "../src/Config.js"
import { MemoryGuardLive } from "../src/MemoryGuard.js"
import { forcedCollections } from "../src/Metrics.js"
import { TEST_ENV } from "./support/server.js"

/** Forced collections counted while the guard runs for `ms` with MEMORY_LIMIT_MIB=`limit`. */
const collectionsWithin = (limit: string, ms: number) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const before = (yield* Metric.value(forcedCollections)).count
      yield* Effect.sleep(ms)
      return (yield* Metric.value(forcedCollections)).count - before
    }).pipe(
      Effect.provide(MemoryGuardLive.pipe(Layer.provide(AppConfig.layer))),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...TEST_ENV, MEMORY_LIMIT_MIB: limit } })))
    )
  )

describe("the memory guard (MEMORY_LIMIT_MIB)", () => {
  test("above the limit, a full collection runs once a second", async () => {
    // every process is above 1 MiB
    const count = await collectionsWithin("1", 2_300)
    expect(count).toBeGreaterThanOrEqual(1)
    expect(count).toBeLessThanOrEqual(3)
  })

  test("below the limit, or off (0), none runs", async () => {
    expect(await collectionsWithin("1000000", 1_300)).toBe(0)
    expect(await collectionsWithin("0", 1_300)).toBe(0)
  })
})
