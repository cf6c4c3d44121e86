import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import pg from "pg"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Manifest } from "../mirror/Snapshot.js"
import { SNAPSHOT_TYPES } from "../src/Snapshots/Api.js"
import { onPostgres } from "./support/database.js"
import { request } from "./support/http.js"
import { testWhen } from "./support/skips.js"
import { startServer, type TestServer } from "./support/server.js"
import { runSnapshot } from "./support/snapshot.js"

/**
 * Snapshots (docs/api.md, "Snapshots") over their own server, which writes one in the background at
 * start (no snapshot in its SNAPSHOT_DIR yet), on PostgreSQL or the embedded database alike.
 */
let server: TestServer
let dir: string

let manifest: Manifest
const OTHER_CURSOR = "a-cursor-of-another-database"
/** Each type's lines, as downloaded. */
const lines = new Map<string, ReadonlyArray<string>>()

const download = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(server.baseUrl + url, init)
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "snapshots-test-"))
  // a fresh snapshot of another database (its cursor is none of this one's): replaced at start
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ created_at: new Date().toISOString(), cursor: OTHER_CURSOR, files: [] }))
  // the fixture goes in first: a server writes its snapshot at start, before a test could add rows
  const loading = await startServer()
  await loading.stop()
  server = await startServer({ database: loading.database, env: { SNAPSHOT_DIR: dir, SNAPSHOT_INTERVAL_HOURS: "24" } })
  // the demo catalogue's within a minute (docs/api.md); the fixture's within seconds
  const deadline = Date.now() + 60_000
  while (true) {
    const reply = await request(server.baseUrl, "/v1/snapshots")
    expect(reply.status).toBe(200)
    if (reply.body.data.cursor !== OTHER_CURSOR) {
      manifest = reply.body.data
      break
    }
    if (Date.now() > deadline) throw new Error("no snapshot within a minute")
    await Bun.sleep(200)
  }
  for (const file of manifest.files) {
    const { bytes } = await download(file.url)
    const text = new TextDecoder().decode(Bun.gunzipSync(bytes))
    lines.set(file.type, text === "" ? [] : text.slice(0, -1).split("\n"))
  }
}, 120_000)

afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every item of a paginated public list. */
const everyItem = async (path: string) => {
  const items: Array<any> = []
  let cursor = ""
  do {
    const reply = await request(server.baseUrl, `${path}${path.includes("?") ? "&" : "?"}limit=50${cursor === "" ? "" : `&cursor=${cursor}`}`)
    expect(reply.status).toBe(200)
    items.push(...reply.body.data)
    cursor = reply.body.meta.next_cursor
  } while (cursor !== "")
  return items
}

const DETAIL_PATHS: Record<string, (row: any) => string> = {
  songs: (row) => `/v1/songs/${row.id}`,
  albums: (row) => `/v1/albums/${row.id}`,
  curated_lists: (row) => `/v1/curated-lists/${row.id}`,
  artists: (row) => `/v1/artists/${row.id}`,
  genres: (row) => `/v1/genres/${row.slug}`,
  labels: (row) => `/v1/labels/${row.id}`
}

const LIST_PATHS: Record<string, string> = {
  songs: "/v1/songs",
  albums: "/v1/albums",
  curated_lists: "/v1/curated-lists",
  artists: "/v1/artists",
  genres: "/v1/genres",
  labels: "/v1/labels",
  users: "/v1/users"
}

describe("the manifest", () => {
  test("lists every type in the feed's order, each file's rows, bytes and sha256 as downloaded, named after its content", async () => {
    expect(manifest.files.map((file) => file.type)).toEqual([...SNAPSHOT_TYPES])
    expect(Date.parse(manifest.created_at)).toBeGreaterThan(Date.now() - 5 * 60_000)
    for (const file of manifest.files) {
      const { bytes } = await download(file.url)
      const sha256 = createHash("sha256").update(bytes).digest("hex")
      expect(file.sha256).toBe(sha256)
      expect(file.bytes).toBe(bytes.length)
      expect(file.name).toBe(`${file.type}-${sha256.slice(0, 16)}.ndjson.gz`)
      expect(file.url).toBe(`/v1/snapshots/${file.name}`)
      expect(lines.get(file.type)!.length).toBe(file.rows)
    }
  })

  test("a snapshot of another database found at start (a data directory made anew) was replaced, and kept as the previous one", async () => {
    expect(manifest.cursor).not.toBe(OTHER_CURSOR)
    expect(JSON.parse(await Bun.file(join(dir, "manifest-previous.json")).text()).cursor).toBe(OTHER_CURSOR)
  })

  test("each type's rows are its public total", async () => {
    for (const file of manifest.files) {
      const reply = await request(server.baseUrl, `${LIST_PATHS[file.type]}?limit=1`)
      expect({ type: file.type, rows: file.rows }).toEqual({ type: file.type, rows: reply.body.meta.total })
      expect(file.rows).toBeGreaterThan(0)
    }
  })

  test("its cursor is one /v1/changes takes, and the feed from it carries what changed after the snapshot", async () => {
    const first = await request(server.baseUrl, `/v1/changes?since=${manifest.cursor}&limit=1000`)
    expect(first.status).toBe(200)
    await server.sql("UPDATE songs SET title = title || ' (live)' WHERE id = 1")
    await server.sql("UPDATE songs SET published_at = now() - interval '1 minute' WHERE id = 10")
    try {
      const entries: Array<{ type: string; id: number | string; change: string }> = []
      let since = manifest.cursor
      while (true) {
        const page = await request(server.baseUrl, `/v1/changes?since=${since}&limit=1000`)
        entries.push(...page.body.data)
        if (page.body.meta.next_cursor === since) break
        since = page.body.meta.next_cursor
      }
      expect(entries).toContainEqual(expect.objectContaining({ type: "songs", id: 1, change: "upsert" }))
      expect(entries).toContainEqual(expect.objectContaining({ type: "songs", id: 10, change: "upsert" }))
    } finally {
      await server.sql("UPDATE songs SET title = replace(title, ' (live)', '') WHERE id = 1")
      await server.sql("UPDATE songs SET published_at = NULL WHERE id = 10")
    }
  })
})

describe("the files", () => {
  test("every line is byte for byte the data of the service's own detail answer, by id", async () => {
    for (const [type, path] of Object.entries(DETAIL_PATHS)) {
      const rows = lines.get(type)!
      const ids = rows.map((line) => JSON.parse(line).id as number)
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
      for (const line of rows) {
        const reply = await request(server.baseUrl, path(JSON.parse(line)))
        expect(reply.text).toBe(`{"data":${line}}`)
      }
    }
  })

  test("users: every public entry of /v1/users, by username", async () => {
    const rows = lines.get("users")!.map((line) => JSON.parse(line))
    const listed = await everyItem("/v1/users?sort=name")
    const byName = new Map(listed.map((user) => [user.username, user]))
    expect(rows.length).toBe(listed.length)
    for (const row of rows) expect(row).toEqual(byName.get(row.username))
    const handles = rows.map((row) => row.username.toLowerCase())
    expect(handles).toEqual([...handles].sort())
  })

  test("hidden rows (unpublished, deleted, scheduled, banned, hidden artists) appear in no file", () => {
    for (const [type, rows] of lines) {
      for (const line of rows) expect({ type, line }).toEqual({ type, line: expect.not.stringContaining("CANARY") })
    }
    const ids = (type: string) => lines.get(type)!.map((line) => JSON.parse(line).id)
    for (const hidden of [10, 11, 12]) expect(ids("songs")).not.toContain(hidden)
    expect(ids("albums")).not.toContain(3)
    expect(ids("curated_lists")).not.toContain(3)
    expect(ids("artists")).not.toContain(10)
    expect(lines.get("users")!.map((line) => JSON.parse(line).username)).not.toContain("canary_banned")
  })
})

describe("a file's download", () => {
  const songs = () => manifest.files[0]!

  test("200: the raw gzip bytes, strong ETag, Content-Length, immutable, one rate-limit token, whatever Accept-Encoding says", async () => {
    const { response, bytes } = await download(songs().url, { headers: { "accept-encoding": "gzip, br" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/gzip")
    expect(response.headers.get("content-encoding")).toBeNull()
    expect(response.headers.get("etag")).toBe(`"${songs().sha256}"`)
    expect(response.headers.get("content-length")).toBe(String(songs().bytes))
    expect(response.headers.get("accept-ranges")).toBe("bytes")
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(response.headers.get("x-ratelimit-remaining")).not.toBeNull()
    expect(bytes.length).toBe(songs().bytes)
  })

  test("HEAD says the length and sends nothing", async () => {
    const response = await fetch(server.baseUrl + songs().url, { method: "HEAD" })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-length")).toBe(String(songs().bytes))
    expect((await response.arrayBuffer()).byteLength).toBe(0)
  })

  test("If-None-Match with its ETag (strong or weak) answers 304 with the ETag and no body", async () => {
    for (const tag of [`"${songs().sha256}"`, `W/"${songs().sha256}"`, `"other", "${songs().sha256}"`]) {
      const { response, bytes } = await download(songs().url, { headers: { "if-none-match": tag } })
      expect(response.status).toBe(304)
      expect(response.headers.get("etag")).toBe(`"${songs().sha256}"`)
      expect(bytes.length).toBe(0)
    }
    const { response } = await download(songs().url, { headers: { "if-none-match": `"other"` } })
    expect(response.status).toBe(200)
  })

  test("one Range answers 206 with Content-Range and exactly those bytes; If-Range with another tag the whole file", async () => {
    const whole = (await download(songs().url)).bytes
    const size = songs().bytes
    const cases: Array<[string, number, number]> = [["bytes=0-9", 0, 9], ["bytes=100-199", 100, 199], ["bytes=-50", size - 50, size - 1], [`bytes=${size - 5}-`, size - 5, size - 1], [`bytes=${size - 3}-${size + 100}`, size - 3, size - 1]]
    for (const [range, start, end] of cases) {
      const { response, bytes } = await download(songs().url, { headers: { range } })
      expect(response.status).toBe(206)
      expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`)
      expect(response.headers.get("content-length")).toBe(String(end - start + 1))
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(bytes).toEqual(whole.slice(start, end + 1))
    }
    const matching = await download(songs().url, { headers: { range: "bytes=0-9", "if-range": `"${songs().sha256}"` } })
    expect(matching.response.status).toBe(206)
    for (const headers of [{ range: "bytes=0-9", "if-range": `"other"` }, { range: "bytes=0-1,5-6" }, { range: "bytes=9-0" }, { range: "items=0-9" }]) {
      const { response, bytes } = await download(songs().url, { headers })
      expect(response.status).toBe(200)
      expect(bytes.length).toBe(size)
    }
  })

  test("a range past the end is 416 with the envelope and Content-Range: bytes */size", async () => {
    for (const range of [`bytes=${songs().bytes}-`, "bytes=999999999-", "bytes=-0"]) {
      const reply = await request(server.baseUrl, songs().url, { headers: { range } })
      expect(reply.status).toBe(416)
      expect(reply.headers.get("content-range")).toBe(`bytes */${songs().bytes}`)
      expect(reply.body.error.code).toBe("bad_request")
    }
  })

  test("hostile or unknown names are a 404 envelope, never a file outside the snapshots", async () => {
    const names = [
      "manifest.json",
      "..%2Fmanifest.json",
      "%2E%2E%2F%2E%2E%2Fpackage.json",
      "..%2F..%2F..%2Fetc%2Fpasswd",
      "songs-0123456789abcdef.ndjson.gz",
      songs().name.toUpperCase(),
      `${songs().name}%00`,
      `${songs().name}.tmp`,
      "songs-%2E%2E.ndjson.gz",
      "x".repeat(3000)
    ]
    for (const name of names) {
      const reply = await request(server.baseUrl, `/v1/snapshots/${name}`)
      expect({ name, status: reply.status }).toEqual({ name, status: reply.status === 400 ? 400 : 404 })
      expect(reply.body.error.code).toMatch(/^(not_found|bad_request)$/)
      expect(reply.text).not.toContain("root:")
    }
  })

  test("with no manifest in SNAPSHOT_DIR the manifest is a 404 envelope", async () => {
    renameSync(join(dir, "manifest.json"), join(dir, "manifest.aside"))
    try {
      const reply = await request(server.baseUrl, "/v1/snapshots")
      expect(reply.status).toBe(404)
      expect(reply.body.error.code).toBe("not_found")
    } finally {
      renameSync(join(dir, "manifest.aside"), join(dir, "manifest.json"))
    }
  })
})

/** Follows the feed from `since` until it comes back unchanged. */
const followFeed = async (since: string) => {
  const entries: Array<{ type: string; id: number | string; change: "upsert" | "remove" }> = []
  while (true) {
    const page = await request(server.baseUrl, `/v1/changes?since=${since}&limit=1000`)
    expect(page.status).toBe(200)
    entries.push(...page.body.data)
    if (page.body.meta.next_cursor === since) return entries
    since = page.body.meta.next_cursor
  }
}

describe("bun run snapshot", () => {
  testWhen(onPostgres, "a second connection and the command beside the service need PostgreSQL")("a copy loaded from a snapshot and brought on by the feed from its cursor equals the catalogue: a write committed after the snapshot began, a schedule falling due after it", async () => {
    if (server.database.kind !== "postgres") throw new Error("TEST_DATABASE_URL names no PostgreSQL server")
    const out = mkdtempSync(join(tmpdir(), "snapshots-exact-"))
    const writer = new pg.Client({ connectionString: server.database.url })
    await writer.connect()
    const [{ title }] = await server.sql<{ title: string }>("SELECT title FROM songs WHERE id = 2") as [{ title: string }]
    try {
      await server.sql("UPDATE songs SET published_at = now() + interval '3 seconds' WHERE id = 12")
      // open across the snapshot: its snapshot cannot see this publication
      await writer.query("BEGIN")
      await writer.query("UPDATE songs SET published_at = now() - interval '1 hour' WHERE id = 10")
      await writer.query("UPDATE songs SET title = 'Late Title' WHERE id = 2")
      const { code, stderr } = await runSnapshot(server.database, out)
      expect({ code, stderr }).toEqual({ code: 0, stderr: expect.not.stringContaining("error") })
      await writer.query("COMMIT")
      const written = JSON.parse(await Bun.file(join(out, "manifest.json")).text()) as Manifest
      const songsFile = written.files.find((file) => file.type === "songs")!
      const copy = new Map<number, string>()
      for (const line of new TextDecoder().decode(Bun.gunzipSync(await Bun.file(join(out, songsFile.name)).bytes())).split("\n")) {
        if (line !== "") copy.set(JSON.parse(line).id, line)
      }
      expect(copy.has(10)).toBe(false)
      expect(copy.has(12)).toBe(false)
      expect(copy.get(2)).not.toContain("Late Title")
      await Bun.sleep(3500)
      for (const entry of await followFeed(written.cursor)) {
        if (entry.type !== "songs") continue
        if (entry.change === "remove") copy.delete(entry.id as number)
        else copy.set(entry.id as number, (await request(server.baseUrl, `/v1/songs/${entry.id}`)).text.slice('{"data":'.length, -1))
      }
      const publicIds = (await everyItem("/v1/songs?sort=title")).map((song) => song.id as number).sort((a, b) => a - b)
      expect([...copy.keys()].sort((a, b) => a - b)).toEqual(publicIds)
      for (const id of publicIds) expect(`{"data":${copy.get(id)}}`).toBe((await request(server.baseUrl, `/v1/songs/${id}`)).text)
      expect(publicIds).toContain(10)
      expect(publicIds).toContain(12)
    } finally {
      await writer.query("ROLLBACK").catch(() => undefined)
      await writer.end()
      await server.sql("UPDATE songs SET published_at = NULL WHERE id = 10")
      await server.sql("UPDATE songs SET published_at = now() + interval '7 days' WHERE id = 12")
      await server.sql("UPDATE songs SET title = $1 WHERE id = 2", [title])
      rmSync(out, { recursive: true, force: true })
    }
  }, 120_000)

  testWhen(onPostgres, "the command beside the service needs PostgreSQL")("one writer at a time per directory: another process's lock refuses, a dead one's is taken over with its temporary files", async () => {
    const out = mkdtempSync(join(tmpdir(), "snapshots-lock-"))
    try {
      writeFileSync(join(out, ".writing"), String(process.pid))
      const refused = await runSnapshot(server.database, out)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`process ${process.pid} is writing a snapshot`)
      writeFileSync(join(out, ".writing"), "2147483646")
      writeFileSync(join(out, ".songs-0123456789ab.tmp"), "half a file")
      expect((await runSnapshot(server.database, out)).code).toBe(0)
      expect(readdirSync(out).filter((name) => name.startsWith("."))).toEqual([])
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 60_000)

  testWhen(onPostgres, "the embedded database is held by the server")("writes a snapshot into --out; the latest two are kept, older files deleted", async () => {
    const out = mkdtempSync(join(tmpdir(), "snapshots-cli-"))
    const run = async () => {
      expect((await runSnapshot(server.database, out)).code).toBe(0)
      return JSON.parse(await Bun.file(join(out, "manifest.json")).text()) as Manifest
    }
    try {
      const written: Array<Manifest> = []
      for (const title of ["Snapshot A", "Snapshot B", "Snapshot C"]) {
        await server.sql(`UPDATE genres SET description = $1 WHERE id = 1`, [title])
        written.push(await run())
      }
      const names = (m: Manifest) => m.files.map((file) => file.name)
      const kept = new Set([...names(written[1]!), ...names(written[2]!)])
      expect(readdirSync(out).filter((name) => name.endsWith(".ndjson.gz")).sort()).toEqual([...kept].sort())
      const genresFile = (m: Manifest) => m.files.find((file) => file.type === "genres")!.name
      expect(new Set(written.map(genresFile)).size).toBe(3)
      expect(readdirSync(out)).not.toContain(genresFile(written[0]!))
      // the CLI's lines are the service's answers too
      const genres = new TextDecoder().decode(Bun.gunzipSync(await Bun.file(join(out, written[2]!.files[4]!.name)).bytes()))
      const first = genres.split("\n")[0]!
      expect((await request(server.baseUrl, `/v1/genres/${JSON.parse(first).slug}`)).text).toBe(`{"data":${first}}`)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 120_000)
})
