import { describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { AppConfig } from "../src/Config.js"
import { MemoryGuardLive } from "../src/MemoryGuard.js"
import { forcedCollections } from "../src/Metrics.js"
import { freePort, spawnService, type ServiceProcess } from "./support/child.js"
import { onPostgres } from "./support/database.js"
import { migratedDatabase } from "./support/template.js"
import { testWhen } from "./support/skips.js"
import { TEST_ENV } from "./support/server.js"

/** Only read by the configuration here: the guard never connects. */
const SOME_POSTGRES = { DATABASE_URL: "postgres://guard@127.0.0.1:1/guard" }

/** Forced collections counted while the guard runs in this process for `ms` with `env`. */
const collectionsWithin = (env: Record<string, string>, ms: number) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const before = (yield* Metric.value(forcedCollections)).count
      yield* Effect.sleep(ms)
      return (yield* Metric.value(forcedCollections)).count - before
    }).pipe(
      Effect.provide(MemoryGuardLive.pipe(Layer.provide(AppConfig.layer))),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...TEST_ENV, ...env } })))
    )
  )

describe("the memory guard in a process (MEMORY_LIMIT_MIB)", () => {
  test("with the JS heap above the limit, a full collection runs once a second", async () => {
    // every process's heap is above 1 MiB
    const count = await collectionsWithin({ ...SOME_POSTGRES, MEMORY_LIMIT_MIB: "1" }, 2_300)
    expect(count).toBeGreaterThanOrEqual(1)
    expect(count).toBeLessThanOrEqual(3)
  })

  test("below the limit, or off (0), none runs", async () => {
    expect(await collectionsWithin({ ...SOME_POSTGRES, MEMORY_LIMIT_MIB: "1000000" }, 1_300)).toBe(0)
    expect(await collectionsWithin({ ...SOME_POSTGRES, MEMORY_LIMIT_MIB: "0" }, 1_300)).toBe(0)
  })

  test("with the embedded database (no DATABASE_URL) it is off, whatever the limit", async () => {
    expect(await collectionsWithin({ MEMORY_LIMIT_MIB: "1" }, 1_300)).toBe(0)
  })
})

/**
 * The forced-collection counter a running service reports in Prometheus text: from METRICS_PORT
 * where the service has its own metrics listener, else from /metrics on its public port.
 */
const forcedCollectionsOf = async (baseUrl: string, metricsPort: number): Promise<number> => {
  const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    .catch(() => fetch(`${baseUrl}/metrics`))
    .then((response) => response.text())
  const sample = /^catalogue_memory_forced_collections(?:_total)?(?:\{[^}]*\})? (\S+)$/m.exec(text)
  if (sample === null) throw new Error(`no forced-collection counter in:\n${text}`)
  return Number(sample[1])
}

/** A service started as an operator starts it, with Prometheus metrics on; stopped after `use`. */
const withService = async (env: Record<string, string>, use: (read: () => Promise<number>) => Promise<void>) => {
  const metricsPort = freePort()
  const service: ServiceProcess = spawnService({ ...env, METRICS: "prometheus", METRICS_PORT: String(metricsPort), LOG_LEVEL: "info" })
  try {
    const baseUrl = await service.baseUrl(120_000)
    await use(() => forcedCollectionsOf(baseUrl, metricsPort))
  } finally {
    service.process.kill("SIGTERM")
    await service.exited
  }
}

describe("the memory guard in a running service", () => {
  test("an idle service on the embedded database forces no collection over 10 s (its WebAssembly heap is not the JS heap's garbage)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "catalogue-guard-"))
    try {
      // the default limit, a small demo catalogue
      await withService({ DATA_DIR: dataDir, DEMO_SEED_SONGS: "50" }, async (read) => {
        const before = await read()
        await Bun.sleep(10_000)
        expect(await read()).toBe(before)
        expect(before).toBe(0)
      })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)

  testWhen(onPostgres, "the guard is off on the embedded database")("on PostgreSQL, with its JS heap above a small limit, it forces a collection every second", async () => {
    const database = await migratedDatabase()
    if (database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    try {
      await withService({ DATABASE_URL: database.url, MEMORY_LIMIT_MIB: "1" }, async (read) => {
        const before = await read()
        await Bun.sleep(3_200)
        const forced = (await read()) - before
        expect(forced).toBeGreaterThanOrEqual(2)
        expect(forced).toBeLessThanOrEqual(4)
      })
    } finally {
      await database.drop()
    }
  }, 180_000)
})
