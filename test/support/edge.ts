import type * as Layer from "effect/Layer"
import { fixtureDatabase } from "./template.js"
import { sharedServer, startServer, type TestServer } from "./server.js"

/**
 * A server of its own with the edge's real settings on top of TEST_ENV. On PostgreSQL it reuses
 * the shared fixture database; the embedded database allows one server per data directory, so
 * there it gets a fresh one (with the fixture loaded), dropped on stop.
 */
export const startEdgeServer = async (env: Record<string, string>, layer?: Layer.Layer<never>): Promise<TestServer> => {
  const shared = await sharedServer()
  if (shared.database.kind === "postgres") return startServer({ env, database: shared.database, ...(layer && { layer }) })
  const database = await fixtureDatabase()
  const server = await startServer({ env, database, ...(layer && { layer }) })
  return { ...server, stop: () => server.stop().then(database.drop) }
}

/** The real rate limit (and bound on requests in flight) and response cache, as production has them. */
export const REAL_EDGE_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_CAPACITY: "360",
  RATE_LIMIT_WINDOW_SECONDS: "60",
  RATE_LIMIT_MAX_IN_FLIGHT: "1",
  CACHE_TTL_SECONDS: "30"
}
