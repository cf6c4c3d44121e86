import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { onPostgres } from "./support/database.js"
import { request } from "./support/http.js"
import { apiRows, expectFileEqualsApi, fileCursor, fileRows, mirrorOnce, sortedEntries, spawnMirror } from "./support/mirror.js"
import { ON_POSTGRES_ONLY, testWhen } from "./support/skips.js"
import { startServer, type TestServer } from "./support/server.js"

/**
 * The reference mirror client (`bun run mirror`, mirror/) against the real service: built from
 * nothing by replaying the feed, kept up with writes of every kind, killed and resumed, and run
 * against a small rate limit. Its file is compared with the API's answers row by row.
 */
const ROOT = resolve(import.meta.dir, "..")
/** A second service over the test database beside the first needs a PostgreSQL server (the embedded database takes one process's service at a time). */
const testOnPostgres = testWhen(onPostgres, ON_POSTGRES_ONLY)
let server: TestServer
let dir: string

/** Settings of every service here: a port of its own, and no snapshot to serve (the feed is replayed from its beginning). */
const serviceEnv = (port: number, more: Record<string, string> = {}) => ({ PORT: String(port), SNAPSHOT_DIR: join(dir, "no-snapshots"), ...more })

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalogue-mirror-"))
  server = await startServer({ env: serviceEnv(22101) })
}, 120_000)

afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Writes of every kind, with the rows they must leave in (or take out of) the mirror. */
const WRITES = [
  // publications and hides: a hidden song published (its hidden artist becomes visible), a song hidden, a song deleted
  `UPDATE songs SET published_at = now() - interval '1 minute', deleted_at = NULL WHERE id = 10`,
  `UPDATE songs SET published_at = NULL WHERE id = 3`,
  `UPDATE songs SET deleted_at = now() WHERE id = 5`,
  `UPDATE albums SET published_at = NULL WHERE id = 2`,
  // edits of a song, an artist shown on 60 songs, a genre, a label
  `UPDATE songs SET title = 'Cindai (Mirror Edit)' WHERE id = 1`,
  `UPDATE artists SET name = 'Amy Mirror' WHERE id = 4`,
  `UPDATE genres SET title = 'Dangdut Baru' WHERE id = 2`,
  `UPDATE labels SET name = 'Suria Music' WHERE id = 2`,
  // credits and tracks
  `INSERT INTO credits (song_id, position, artist_id, role_id) SELECT 8, coalesce(max(position), 0) + 1, 2, 3 FROM credits WHERE song_id = 8`,
  `DELETE FROM credits WHERE song_id = 2 AND position = (SELECT max(position) FROM credits WHERE song_id = 2)`,
  `INSERT INTO album_tracks (album_id, position, song_id) VALUES (1, 6, 8)`,
  `DELETE FROM album_tracks WHERE album_id = 1 AND song_id = 9`,
  // list entries, loves, a handle change, a ban
  `INSERT INTO curated_list_songs (list_id, position, song_id) VALUES (1, 6, 2)`,
  `INSERT INTO loves (member_id, song_id) VALUES (6, 1)`,
  `UPDATE members SET username = 'zul_mirror' WHERE id = 6`,
  `UPDATE members SET is_banned = true WHERE id = 100`,
  // a song scheduled to appear in a moment (with no write then)
  `UPDATE songs SET published_at = clock_timestamp() + interval '1.5 seconds' WHERE id = 12`
]

/** The feed's current cursor: the end of the feed as it stands. */
const feedEnd = async (): Promise<string> => {
  let cursor: string | undefined
  for (;;) {
    const reply = await request(server.baseUrl, `/v1/changes?limit=1000${cursor === undefined ? "" : `&since=${cursor}`}`)
    expect(reply.status).toBe(200)
    if (reply.body.meta.next_cursor === cursor) return cursor!
    cursor = reply.body.meta.next_cursor
  }
}

/**
 * A snapshot in the manifest's format `GET /v1/snapshots` answers, served in front of the real
 * service, which answers everything else: per type a gzip-compressed NDJSON file of the rows'
 * `data` as the API answers them, read after the feed cursor the manifest names.
 */
const startSnapshotFront = async (port: number, spoil?: string) => {
  const cursor = await feedEnd()
  const rows = await apiRows(server.baseUrl)
  const files = new Map<string, Uint8Array>()
  const manifest = {
    created_at: new Date().toISOString(),
    cursor,
    files: ["songs", "albums", "curated_lists", "artists", "genres", "labels", "users"].map((type) => {
      const lines = sortedEntries(rows).filter(([key]) => key.startsWith(`${type}/`)).map(([, json]) => `${json}\n`)
      const name = `${type}-${Bun.hash(lines.join("")).toString(16)}.ndjson.gz`
      const bytes = Bun.gzipSync(lines.join(""))
      files.set(name, type === spoil ? Bun.gzipSync(lines.slice(1).join("")) : bytes)
      const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex")
      return { type, name, rows: lines.length, bytes: bytes.byteLength, sha256, url: `/v1/snapshots/${name}` }
    })
  }
  const front = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch: async (incoming) => {
      const path = new URL(incoming.url).pathname
      if (path === "/v1/snapshots") return Response.json({ data: manifest })
      const file = files.get(path.slice("/v1/snapshots/".length))
      if (file !== undefined) return new Response(file, { headers: { "content-type": "application/gzip" } })
      const answer = await fetch(server.baseUrl + path + new URL(incoming.url).search)
      const headers = new Headers(answer.headers)
      headers.delete("content-encoding")
      headers.delete("content-length")
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers })
    }
  })
  return { baseUrl: `http://127.0.0.1:${port}`, manifest, stop: () => front.stop(true) }
}

describe("the mirror client", () => {
  test("builds a mirror from nothing by replaying the feed; follows writes of every kind; equals the API row for row", async () => {
    const file = join(dir, "follow.sqlite")
    const first = await mirrorOnce(server.baseUrl, file)
    expect(first).toContain("no snapshot served; replaying the feed from its beginning")
    const built = await expectFileEqualsApi(server.baseUrl, file, () => mirrorOnce(server.baseUrl, file))
    for (const hidden of ["songs/10", "songs/11", "albums/3", "curated_lists/3", "artists/10", "users/canary_banned"]) {
      expect(built.has(hidden)).toBe(false)
    }
    for (const type of ["songs", "albums", "curated_lists", "artists", "genres", "labels", "users"]) {
      expect([...built.keys()].some((key) => key.startsWith(`${type}/`))).toBe(true)
    }

    const follower = spawnMirror(["--from", server.baseUrl, "--into", file, "--follow", "--poll-seconds", "1"])
    try {
      await follower.waitFor(/resuming from the stored cursor/)
      await follower.waitFor(/caught up/)
      for (const write of WRITES) await server.sql(write)
      await Bun.sleep(1600)
      // the follower keeps the file; the comparison waits for it
      const after = await expectFileEqualsApi(server.baseUrl, file, () => Bun.sleep(1200))
      expect(after.has("songs/10")).toBe(true)
      expect(after.has("artists/10")).toBe(true)
      expect(after.has("songs/12")).toBe(true)
      expect(after.has("songs/3")).toBe(false)
      expect(after.has("songs/5")).toBe(false)
      expect(after.has("albums/2")).toBe(false)
      expect(after.has("users/zul")).toBe(false)
      expect(after.has("users/zul_mirror")).toBe(true)
      expect(after.has("users/fan100")).toBe(false)
      expect(after.get("songs/1")).toContain("Cindai (Mirror Edit)")
      expect(follower.output()).toMatch(/feed page \d+: \d+ entries/)
    } finally {
      follower.process.kill("SIGTERM")
      await follower.exited
    }
  }, 120_000)

  test("starts from a snapshot: loads every file checked against the manifest, then follows the feed from its cursor", async () => {
    const spoilt = await startSnapshotFront(22104, "artists")
    const file = join(dir, "snapshot.sqlite")
    try {
      // a file that does not match its manifest loads nothing: not the files before it, not the cursor
      const refused = spawnMirror(["--from", spoilt.baseUrl, "--into", file])
      expect(await refused.exited).toBe(1)
      expect(refused.output()).toMatch(/artists-[0-9a-f]+\.ndjson\.gz does not match the manifest/)
      expect(fileRows(file).size).toBe(0)
      expect(fileCursor(file)).toBeUndefined()
    } finally {
      spoilt.stop()
    }
    const front = await startSnapshotFront(22103)
    try {
      const loaded = await mirrorOnce(front.baseUrl, file)
      for (const entry of front.manifest.files) expect(loaded).toContain(`snapshot: ${entry.type} ${entry.rows} rows`)
      expect(loaded).not.toContain("replaying the feed from its beginning")
      expect(loaded).toMatch(/caught up/)
      await server.sql(`UPDATE songs SET title = 'After The Snapshot' WHERE id = 2`)
      await server.sql(`UPDATE songs SET published_at = NULL WHERE id = 4`)
      const after = await expectFileEqualsApi(server.baseUrl, file, () => mirrorOnce(front.baseUrl, file))
      expect(after.get("songs/2")).toContain("After The Snapshot")
      expect(after.has("songs/4")).toBe(false)
    } finally {
      front.stop()
    }
  }, 120_000)

  test("killed halfway, again and again, it resumes from its stored cursor and ends equal to the API", async () => {
    const file = join(dir, "crash.sqlite")
    for (let kill = 0; kill < 3; kill++) {
      const run = spawnMirror(["--from", server.baseUrl, "--into", file, "--page-size", "3", "--concurrency", "2"])
      await run.waitFor(/feed page 4:/)
      await Bun.sleep(kill * 37)
      run.process.kill("SIGKILL")
      await run.exited
      // what the file holds is always a whole number of pages with their cursor
      expect(fileCursor(file)).toBeString()
      if (kill > 0) expect(run.output()).toContain("resuming from the stored cursor")
    }
    const resumed = await mirrorOnce(server.baseUrl, file, "--page-size", "3")
    expect(resumed).toContain("resuming from the stored cursor")
    expect(resumed).not.toContain("replaying the feed from its beginning")
    await expectFileEqualsApi(server.baseUrl, file, () => mirrorOnce(server.baseUrl, file))
  }, 120_000)

  testOnPostgres("a follower rides out the service going away and coming back: requests are retried, nothing is lost", async () => {
    let service = await startServer({ database: server.database, env: serviceEnv(22106) })
    const file = join(dir, "outage.sqlite")
    const follower = spawnMirror(["--from", service.baseUrl, "--into", file, "--follow", "--poll-seconds", "1"])
    try {
      await follower.waitFor(/caught up/)
      await service.stop()
      await server.sql(`UPDATE songs SET title = 'Written During The Outage' WHERE id = 2`)
      await follower.waitFor(/network error on .*; retrying in \d+ ms/)
      service = await startServer({ database: server.database, env: serviceEnv(22106) })
      const rows = await expectFileEqualsApi(server.baseUrl, file, () => Bun.sleep(1000))
      expect(rows.get("songs/2")).toContain("Written During The Outage")
    } finally {
      follower.process.kill("SIGTERM")
      await follower.exited
      await service.stop()
    }
  }, 120_000)

  test("a refusal it cannot retry stops a run with the service's message; a follower waits and starts again", async () => {
    const file = join(dir, "refused.sqlite")
    await mirrorOnce(server.baseUrl, file)
    const db = new Database(file)
    db.run("UPDATE state SET cursor = 'not-a-cursor'")
    db.close()
    const once = spawnMirror(["--from", server.baseUrl, "--into", file])
    expect(await once.exited).toBe(1)
    expect(once.output()).toContain("GET /v1/changes: 400")
    const follower = spawnMirror(["--from", server.baseUrl, "--into", file, "--follow"])
    try {
      await follower.waitFor(/GET \/v1\/changes: 400 .*; starting again in 30 s/)
      expect(follower.process.exitCode).toBeNull()
    } finally {
      follower.process.kill("SIGTERM")
      await follower.exited
    }
  }, 60_000)

  test("the client is a client of the public HTTP API only: it imports nothing of the service", async () => {
    const glob = new Bun.Glob("*.ts")
    const imports: Array<string> = []
    for await (const name of glob.scan(join(ROOT, "mirror"))) {
      const text = await Bun.file(join(ROOT, "mirror", name)).text()
      for (const match of text.matchAll(/from "([^"]+)"/g)) imports.push(match[1]!)
    }
    expect(imports.filter((target) => !/^\.\/[A-Za-z]+\.js$/.test(target) && target !== "bun:sqlite")).toEqual([])
  })

  test("a file kept for another service is refused; bad arguments say how to call it", async () => {
    const file = join(dir, "other.sqlite")
    await mirrorOnce(server.baseUrl, file)
    const other = spawnMirror(["--from", "http://127.0.0.1:22199", "--into", file])
    expect(await other.exited).toBe(1)
    expect(other.output()).toContain(`mirrors ${server.baseUrl}`)
    const bad = spawnMirror(["--from", "ftp://x", "--into", file])
    expect(await bad.exited).toBe(2)
    expect(bad.output()).toContain("usage: bun run mirror")
  }, 60_000)

  testOnPostgres("a detail the response cache answered after an upsert is read again once that copy has expired", async () => {
    // a second service over the same database with the response cache on (30 s, the default)
    const cached = await startServer({ database: server.database, env: serviceEnv(22105, { CACHE_TTL_SECONDS: "30" }) })
    try {
      const file = join(dir, "cached.sqlite")
      await mirrorOnce(cached.baseUrl, file)
      // the song was read (by the mirror, and now again); then it changes: the cache holds the old answer
      expect((await request(cached.baseUrl, "/v1/songs/1")).headers.get("x-cache")).toBe("hit")
      await server.sql(`UPDATE songs SET title = 'Cached Before The Edit' WHERE id = 1`)
      // past the 2 s a caught-up feed page is kept
      await Bun.sleep(2500)
      const run = spawnMirror(["--from", cached.baseUrl, "--into", file])
      await run.waitFor(/caught up: \d+ rows; rows a cache answered are read again in 6\d s/)
      // the cache gave the song as it was before the edit; the client does not stop there
      expect(fileRows(file).get("songs/1")).not.toContain("Cached Before The Edit")
      expect(await run.exited).toBe(0)
      const output = run.output()
      expect(output).toMatch(/read again [1-9]\d* rows a cache had answered/)
      expect(fileRows(file).get("songs/1")).toContain("Cached Before The Edit")
      await expectFileEqualsApi(server.baseUrl, file, () => mirrorOnce(cached.baseUrl, file))
    } finally {
      await cached.stop()
    }
  }, 120_000)

  testOnPostgres("under a small rate limit it waits on the rate-limit headers and 429s, never giving up, and finishes equal", async () => {
    // a second service over the same database, limiting to 10 requests a second
    const limited = await startServer({
      database: server.database,
      env: serviceEnv(22102, { RATE_LIMIT_CAPACITY: "10", RATE_LIMIT_WINDOW_SECONDS: "1", RATE_LIMIT_MAX_IN_FLIGHT: "1" })
    })
    try {
      const file = join(dir, "limited.sqlite")
      const started = Date.now()
      const run = mirrorOnce(limited.baseUrl, file, "--concurrency", "4")
      // another client at the same address spends the bucket for the first seconds: the mirror meets 429s
      while (Date.now() - started < 4000) await request(limited.baseUrl, "/v1/genres")
      const output = await run
      expect(output).toMatch(/rate limited \(429\); waiting [1-9]\d* s/)
      // never hammering: a 429 holds every request back, so at most one per request in flight per wait
      expect(output.match(/rate limited \(429\)/g)!.length).toBeLessThan(40)
      expect(output).toMatch(/[1-9]\d* s waited for the rate limit so far/)
      // over 170 requests at 10 a second
      expect(Date.now() - started).toBeGreaterThan(15_000)
      await expectFileEqualsApi(server.baseUrl, file, () => mirrorOnce(limited.baseUrl, file))
    } finally {
      await limited.stop()
    }
  }, 180_000)
})
