import { beforeAll, describe, expect, test } from "bun:test"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

describe("trigger functions", () => {
  test("every trigger function of the schema runs without JIT, whichever session writes", async () => {
    const functions = await server.sql<{ name: string; config: ReadonlyArray<string> | null }>(`
      SELECT p.oid::regprocedure::text AS name, p.proconfig AS config FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace AND p.prorettype = 'trigger'::regtype
        AND NOT EXISTS (SELECT 1 FROM pg_depend d
                        WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`)
    // the kept counts, the search entries, the feed, the owners' orders: a check over none is no check
    expect(functions.length).toBeGreaterThan(30)
    expect(functions.map((f) => f.name)).toContain("song_links_order_trigger()")
    const withJit = functions.filter((f) => !(f.config ?? []).includes("jit=off")).map((f) => f.name)
    expect(withJit).toEqual([])
  })
})
