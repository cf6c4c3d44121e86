/**
 * `bun run examples`: writes src/Meta/openapi-examples.json, the example of every operation in
 * the OpenAPI document, from the demo catalogue. It seeds a fresh PostgreSQL database
 * (TEST_DATABASE_URL's server) with `bun run seed`, starts the service on it, picks real ids
 * through the public endpoints, and records one request per operation: its parameters and its
 * 200 body (arrays cut to two items to keep the document small). Run it again after adding an
 * endpoint; test/openapi-examples.test.ts says which operations still lack one.
 */
import { join, resolve } from "node:path"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import type { OperationExample } from "../../src/Meta/OpenApiDocument.js"
import { resolveTestDatabase } from "../support/database.js"
import { fillPath, operations, queryOf } from "../support/operations.js"
import { startServer } from "../support/server.js"
import { hs256 } from "../support/tokens.js"

const OUTPUT = resolve(import.meta.dir, "../../src/Meta/openapi-examples.json")
const DEMO_SONGS = "600"

type Value = string | number | ReadonlyArray<string | number>

const database = await resolveTestDatabase()
if (database.kind !== "postgres") throw new Error("bun run examples needs TEST_DATABASE_URL (a PostgreSQL server)")
const env = { ...process.env, DATABASE_URL: database.url }
for (const command of [["bun", "run", "migrate"], ["bun", "run", "seed", "--songs", DEMO_SONGS]]) {
  const child = Bun.spawnSync(command, { env, stdout: "inherit", stderr: "inherit" })
  if (child.exitCode !== 0) throw new Error(`${command.join(" ")} failed`)
}
// a snapshot written at start, for the example of /v1/snapshots
const snapshotDir = mkdtempSync(join(tmpdir(), "examples-snapshots-"))
const server = await startServer({ database, env: { SNAPSHOT_DIR: snapshotDir, SNAPSHOT_INTERVAL_HOURS: "24" } })
for (let tries = 0; (await fetch(`${server.baseUrl}/v1/snapshots`)).status !== 200; tries++) {
  if (tries === 600) throw new Error("no snapshot within a minute")
  await Bun.sleep(100)
}
const staffToken = await hs256()

const get = async (path: string): Promise<any> => {
  const response = await fetch(server.baseUrl + path, {
    headers: path.startsWith("/v1/admin") ? { authorization: `Bearer ${staffToken}` } : {}
  })
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
  return response.json()
}

const first = async (path: string) => (await get(path)).data[0]

/** The first of up to 20 candidates whose sub-list has two pages, so that its cursor example is real. */
const withTwoPages = async (list: string, subList: (item: any) => string) => {
  for (const item of (await get(`${list}&limit=20`)).data) {
    if ((await get(`${subList(item)}?limit=1`)).meta.total >= 2) return item
  }
  throw new Error(`no item of ${list} has two pages of ${subList.name}`)
}

const song = await first("/v1/songs?sort=popular&limit=1")
const artist = await withTwoPages("/v1/artists?sort=songs", (item) => `/v1/artists/${item.id}/albums`)
const genres: Array<{ slug: string; song_count: number }> = (await get("/v1/genres")).data
const genre = genres.reduce((best, next) => (next.song_count > best.song_count ? next : best))
const label = await first("/v1/labels?limit=1")
const user = await withTwoPages("/v1/users?sort=contributions", (item) => `/v1/users/${item.username}/loves`)
const namesakes: Array<{ id: number }> = (await get(`/v1/artists/namesake-hints?ids=${Array.from({ length: 100 }, (_, i) => i + 1).join(",")}`)).data

/** A value for each parameter name any endpoint has, drawn from the demo catalogue. */
const values: Record<string, Value> = {
  songId: song.id,
  albumId: (await first("/v1/albums?limit=1")).id,
  listId: (await first("/v1/curated-lists?limit=1")).id,
  artistId: artist.id,
  slug: genre.slug,
  labelId: label.id,
  username: user.username,
  genre: genre.slug,
  label: label.id,
  year: Number(String(song.released_at).slice(0, 4)),
  q: artist.name,
  types: ["songs", "artists"],
  ids: namesakes.slice(0, 2).map((hint) => hint.id),
  limit: 2,
  offset: 0
}

/** What travels on the wire: lists comma-separated, numbers as text. */
const wire = (value: Value) => (Array.isArray(value) ? value.join(",") : String(value))

/** Keeps a body short: every array cut to its first two items. */
const shorten = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.slice(0, 2).map(shorten)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shorten(item)]))
  }
  return value
}

const document = await get("/v1/openapi.json")
const examples: Record<string, OperationExample> = {}
for (const operation of operations) {
  // a file's bytes (a snapshot's) have no example
  if (document.paths[operation.path.replace(/:(\w+)/g, "{$1}")][operation.method.toLowerCase()].responses["200"].content["application/json"] === undefined) continue
  const documented: Array<{ name: string; in: string; required: boolean; schema: any }> =
    document.paths[operation.path.replace(/:(\w+)/g, "{$1}")][operation.method.toLowerCase()].parameters
  const parameters: Record<string, Value> = {}
  const asked: Record<string, string> = {}
  for (const parameter of documented.filter((p) => p.in !== "header")) {
    const value = values[parameter.name] ?? parameter.schema.enum?.[0] ?? parameter.schema.default
    if (value === undefined) continue
    parameters[parameter.name] = value
    if (parameter.in === "query" && (parameter.required || ["limit", "types"].includes(parameter.name))) {
      asked[parameter.name] = wire(value)
    }
  }
  const path = fillPath(operation.path, Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, wire(v)])))
  const body = await get(path + queryOf(asked))
  // a real token for the parameters that take meta.next_cursor: the second page of the same list,
  // asked one item at a time if two are all there is
  for (const name of ["cursor", "since"].filter((name) => documented.some((p) => p.name === name))) {
    const cursor = body.meta.next_cursor || (await get(path + queryOf({ ...asked, limit: "1" }))).meta.next_cursor
    if (cursor !== "") parameters[name] = cursor
  }
  examples[operation.operationId] = { parameters, response: shorten(body) }
  console.error(`${operation.operationId}: ${path}${queryOf(asked)}`)
}

writeFileSync(OUTPUT, `${JSON.stringify(examples, null, 2)}\n`)
console.error(`wrote ${Object.keys(examples).length} examples to ${OUTPUT}`)
await server.stop()
await database.drop()
rmSync(snapshotDir, { recursive: true, force: true })
