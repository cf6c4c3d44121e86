import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startServer, TEST_ENV, type TestServer } from "./support/server.js"

/**
 * Every connection of the service's pool (and the embedded database's one session) runs with
 * src/Database.ts's session settings: a query's own connection reports them.
 */
describe("session settings", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ env: { DATABASE_STATEMENT_TIMEOUT_MS: "4321" } })
  })
  afterAll(() => server.close())

  test("statements are planned generically, without JIT or parallel workers, within the statement timeout", async () => {
    const [settings] = await server.sql<Record<string, string>>(`SELECT
      current_setting('plan_cache_mode') AS plan_cache_mode, current_setting('jit') AS jit,
      current_setting('max_parallel_workers_per_gather') AS max_parallel_workers_per_gather,
      current_setting('catalogue.cdn_base_url') AS cdn_base_url`)
    expect(settings).toEqual({
      plan_cache_mode: "force_generic_plan",
      jit: "off",
      max_parallel_workers_per_gather: "0",
      cdn_base_url: TEST_ENV.CDN_BASE_URL!
    })
    if (server.database.kind === "postgres") {
      const [timeout] = await server.sql<{ ms: string }>("SELECT current_setting('statement_timeout') AS ms")
      expect(timeout!.ms).toBe("4321ms")
    }
  })
})
