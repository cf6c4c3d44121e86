import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { routes } from "../src/Http/Routes.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import type { TestServer } from "./support/server.js"
import { hs256 } from "./support/tokens.js"
import { FIXTURE_PATH_VALUES } from "./support/fixture.js"

/** A fixture row with content (credits, tracks, entries, contributions) for every path parameter. */
// `file`: set once the server's snapshot is written (beforeAll)
const FIXTURE_VALUES: Record<string, string> = { ...FIXTURE_PATH_VALUES, file: "" }

/** The query a route needs to answer 200 with something in it. */
const QUERIES: Record<string, string> = {
  "/v1/search": "?q=a",
  "/v1/artists/namesake-hints": "?ids=7,1,6,10",
  // deep enough for the contribution whose details hold credits and links
  "/v1/users/:username/contributions": "?limit=80"
}

const concrete = (template: string) =>
  template.replace(/:(\w+)/g, (_, name: string) => {
    const value = FIXTURE_VALUES[name]
    if (value === undefined) throw new Error(`no fixture value for :${name} in ${template}`)
    return value
  }) + (QUERIES[template] ?? "")

describe("every JSON body is compact: byte for byte what JSON.stringify prints", () => {
  let server: TestServer
  let token: string
  let snapshotDir: string
  beforeAll(async () => {
    snapshotDir = mkdtempSync(join(tmpdir(), "compact-json-snapshots-"))
    server = await startEdgeServer({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "1000000", SNAPSHOT_DIR: snapshotDir, SNAPSHOT_INTERVAL_HOURS: "24" })
    token = await hs256()
    // the snapshot the server writes at start, for /v1/snapshots and one of its files
    while (true) {
      const reply = await fetch(`${server.baseUrl}/v1/snapshots`)
      if (reply.status === 200) {
        FIXTURE_VALUES.file = ((await reply.json()) as { data: { files: Array<{ name: string }> } }).data.files[0]!.name
        break
      }
      await Bun.sleep(100)
    }
  }, 60_000)
  afterAll(async () => {
    await server.stop()
    rmSync(snapshotDir, { recursive: true, force: true })
  })

  test("each GET route of the fixture", async () => {
    const checked: Array<string> = []
    for (const route of routes) {
      const path = concrete(route.template)
      const reply = await fetch(server.baseUrl + path, {
        headers: route.kind === "staff" ? { authorization: `Bearer ${token}` } : {}
      })
      const body = await reply.text()
      expect(reply.status, path).toBe(200)
      if (!(reply.headers.get("content-type") ?? "").startsWith("application/json")) continue
      expect(body, path).toBe(JSON.stringify(JSON.parse(body)))
      checked.push(path)
    }
    // every route but the HTML documentation page and a snapshot's file (gzip); the bodies hold nested objects and arrays
    expect(checked.length).toBe(routes.length - 2)
    const song = await (await fetch(`${server.baseUrl}/v1/songs/1`)).text()
    expect(song).toContain(`"credits":[{"order":`)
    const contributions = await (await fetch(`${server.baseUrl}/v1/users/aishah_fan/contributions?limit=80`)).text()
    expect(contributions).toContain(`"added_credits":[{"artist_name":"M. Nasir","role_name":"Lyricist"}],"removed_credits":[]`)
    console.log(`compact JSON: ${checked.length} bodies checked`)
  }, 60_000)
})
