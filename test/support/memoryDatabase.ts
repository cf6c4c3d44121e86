import { Layer, ManagedRuntime } from "effect"
import type { SqlClient } from "effect/sql"
import type pg from "pg"
import { createEmbedded, queryPathLayer } from "../../src/Database.js"

/**
 * An in-memory embedded database (createEmbedded) behind the
 * service's own query path, as the embedded database is served: exactly one connection, PGlite
 * being a single backend. Empty: the caller applies a schema.
 */
export const memoryDatabase = async () => {
  const { createPgConfig } = await import("@electric-sql/pglite/node-postgres")
  const db = await createEmbedded("memory://")
  const config = { ...createPgConfig(db), max: 1, idleTimeoutMillis: 0 } as unknown as pg.PoolConfig
  const runtime = ManagedRuntime.make(queryPathLayer(config) as Layer.Layer<SqlClient.SqlClient, unknown>)
  return {
    runtime,
    close: async () => {
      await runtime.dispose()
      await db.close()
    }
  }
}
