import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fc from "fast-check"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { Change } from "../src/Contract/Change.js"
import { ListEnvelope } from "../src/Contract/Envelope.js"
import { onPostgres, postgresDatabase, testServerUrl } from "./support/database.js"
import { CURSOR_SECRET_SQL, withHorizonAhead } from "./support/feedCursor.js"
import { EDIT_KINDS, EDITED_ROWS, editArb, editSql, everyKindArb, quietEditArb, type Edit, type EditKind } from "./support/feedEdits.js"
import { assertProperty } from "./support/propertySeeds.js"
import { decodeWith, request } from "./support/http.js"
import { startServer, type TestServer } from "./support/server.js"
import { ON_POSTGRES_ONLY, testWhen } from "./support/skips.js"
import { runSnapshot } from "./support/snapshot.js"
import { slow } from "./support/slow.js"

/**
 * The change feed over its own server and database (the property test edits rows freely).
 * The response cache is off (CACHE_TTL_SECONDS=0 in the test settings): a cached page would be stale.
 */
const ChangeList = ListEnvelope(Change, "ChangeList")
let server: TestServer
let writers: Array<pg.Client> = []

beforeAll(async () => {
  server = await startServer({ statements: EDITED_ROWS })
  if (server.database.kind === "postgres") {
    const url = server.database.url
    writers = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })]
    await Promise.all(writers.map((client) => client.connect()))
  }
}, 120_000)

afterAll(async () => {
  await Promise.all(writers.map((client) => client.end()))
  await server.stop()
  await server.database.drop()
})

interface Entry {
  readonly type: string
  readonly id: number | string
  readonly change: "upsert" | "remove"
  readonly at: string
}

const readPage = async (since: string | undefined, limit?: number) => {
  const query = new URLSearchParams()
  if (since !== undefined) query.set("since", since)
  if (limit !== undefined) query.set("limit", String(limit))
  const reply = await request(server.baseUrl, `/v1/changes?${query}`)
  expect(reply.status).toBe(200)
  const page = decodeWith(ChangeList, reply.body)
  return { data: page.data as ReadonlyArray<Entry>, meta: page.meta }
}

/**
 * A client's copy: type/id -> present, kept by replaying the feed. With `bodies`, it also keeps each
 * row's representation as last fetched, fetches it again on every upsert and records an upsert that
 * found it unchanged: an entry for a row whose public representation did not change.
 */
class Mirror {
  readonly rows = new Set<string>()
  cursor: string | undefined = undefined
  readonly bodies = new Map<string, string>()
  readonly unchanged: Array<string> = []
  /** when (this machine's clock, the database's too) each row's representation was last fetched: its start and end */
  private readonly fetchedAt = new Map<string, { readonly from: number; readonly to: number }>()

  constructor(readonly withBodies = false) {}

  /** Reads until the cursor comes back unchanged (caught up). */
  async catchUp(limit = 1000) {
    for (let round = 0; round < 500; round++) {
      const { data, meta } = await readPage(this.cursor, limit)
      expect(meta.next_cursor).not.toBe("")
      expect(meta.total).toBe(data.length)
      for (const entry of data) {
        const key = `${entry.type}/${entry.id}`
        if (entry.change === "upsert") this.rows.add(key)
        else this.rows.delete(key)
        if (this.withBodies) await this.refetch(key, entry)
      }
      if (meta.next_cursor === this.cursor) return
      this.cursor = meta.next_cursor
    }
    throw new Error("the feed never caught up")
  }

  private async refetch(key: string, { change, at }: Entry) {
    const before = this.bodies.get(key)
    const fetchedBefore = this.fetchedAt.get(key)
    const from = Date.now()
    const now = await representation(key)
    this.fetchedAt.set(key, { from, to: Date.now() })
    if (now === undefined) this.bodies.delete(key)
    else this.bodies.set(key, now)
    // a remove of a row still public, or an upsert of a row shown as before, said nothing true;
    // unless an earlier fetch of the row already saw the change this entry announces: one that
    // ended after the schedule it announces had fallen due (the due stream is read up to a
    // horizon), or one that began after the transaction that wrote it had committed (a
    // transaction of another database, whose start fell between two of ours, can keep the feed
    // between them a moment, so a later page brings the later one's entry of a row read since)
    if (change === "upsert" && before !== undefined && before === now && !(await seenDue(at, fetchedBefore?.to)) && !seenCommitted(at, fetchedBefore?.from)) this.unchanged.push(key)
    if (change === "remove" && now !== undefined) this.unchanged.push(key)
  }

  /** The rows whose kept representation differs from what the public endpoints show now. */
  async stale(): Promise<Array<string>> {
    const stale: Array<string> = []
    for (const [key, body] of this.bodies) if ((await representation(key)) !== body) stale.push(key)
    return stale
  }
}

/** The writers' transactions, each from before its first statement to after its commit returned (this machine's clock, the database's too). */
const transactions: Array<{ readonly from: number; readonly to: number }> = []

/**
 * Waits past a schedule about to fall due, so that none falls due while a step's transaction runs:
 * a withdrawal committed after its time announces the rows it withdrew (readers saw them public
 * meanwhile, docs/changes.md), which this mirror, fetching only between steps, never saw change.
 * That case has tests of its own.
 */
const clearOfSchedules = () => settleSchedules(1000)

/** Runs `statement` on `client`, committing on its own, noting its time in `transactions`. */
const transaction = async (client: pg.Client, statement: string) => {
  const from = Date.now()
  await client.query(statement)
  transactions.push({ from, to: Date.now() })
}

/**
 * The second writer's transaction, made and committed while the first's is open; false, rolled
 * back, when it would wait for a row the first holds (both rewrite one scheduled song's due touches):
 * the caller makes it again once the first has committed.
 */
const commitBeside = async (client: pg.Client, statement: string) => {
  const from = Date.now()
  await client.query("BEGIN")
  await client.query("SET LOCAL lock_timeout = '1s'")
  try {
    await client.query(statement)
  } catch (error) {
    if ((error as { code?: string }).code !== "55P03") throw error
    await client.query("ROLLBACK")
    return false
  }
  await client.query("COMMIT")
  transactions.push({ from, to: Date.now() })
  return true
}

/** Whether an immediate entry at `at` was written by a transaction that had committed before a fetch began at `fetched`. */
const seenCommitted = (at: string, fetched: number | undefined) =>
  fetched !== undefined &&
  transactions.some(({ from, to }) => from - 1 <= Date.parse(at) && Date.parse(at) <= to && to < fetched)

/**
 * Whether an entry at `at` is a due entry (`at` is a scheduled row's `published_at`, to the
 * millisecond) whose change a fetch that ended at `fetched`, after it, may have seen.
 */
const seenDue = async (at: string, fetched: number | undefined) => {
  if (fetched === undefined || fetched <= Date.parse(at)) return false
  const [row] = await server.sql<{ due: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM (SELECT published_at FROM songs UNION ALL SELECT published_at FROM albums
                                   UNION ALL SELECT published_at FROM curated_lists) x
                    WHERE published_at >= $1::timestamptz AND published_at < $1::timestamptz + interval '1 millisecond') AS due`,
    [at]
  )
  return row?.due === true
}

/** Entries after `since` until `done` says enough (the feed may lag a moment behind a commit). */
const readUntil = async (since: string | undefined, done: (entries: ReadonlyArray<Entry>) => boolean) => {
  const entries: Array<Entry> = []
  let cursor = since
  for (let attempt = 0; attempt < 40 && !done(entries); attempt++) {
    const page = await readPage(cursor, 1000)
    entries.push(...page.data)
    if (page.meta.next_cursor === cursor) await Bun.sleep(100)
    cursor = page.meta.next_cursor
  }
  return entries
}

const touches = (entries: ReadonlyArray<Entry>, type: string, id: number | string) =>
  entries.some((entry) => entry.type === type && entry.id === id)

/**
 * The entries from `since` up to those of a public edit made now (a song's title): what that edit
 * alone puts in the feed, to compare with the same edit after others that should add nothing.
 */
const markerEntries = async (since: string | undefined) => {
  await server.sql(`UPDATE songs SET title = title || '.' WHERE id = 8`)
  const data = await readUntil(since, (entries) => touches(entries, "songs", 8))
  return sorted(new Set(data.map((entry) => `${entry.type}/${entry.id}/${entry.change}`)))
}

/**
 * A time to schedule the rows of a test at, one for all of them: eight seconds ahead, as the writes
 * made before it run beside other test files' workers.
 */
const dueSoon = async () => {
  const [row] = await server.sql<{ due: string }>(`SELECT (clock_timestamp() + interval '8 seconds')::text AS due`)
  return row!.due
}

/**
 * The rows of `type` announced at scheduled song `song`'s time, read from `since` once it has
 * passed. The writes before the call were all made before that time (else their rows were public
 * meanwhile).
 */
const dueWith = async (type: string, since: string | undefined, song: number) => {
  const [{ published, ms }] = await server.sql<{ published: string; ms: number }>(
    `SELECT to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS published,
            (extract(epoch FROM published_at - clock_timestamp()) * 1000)::int AS ms FROM songs WHERE id = $1`,
    [song]
  ) as [{ published: string; ms: number }]
  expect(ms).toBeGreaterThan(0)
  await Bun.sleep(ms + 200)
  const data = await readUntil(since, (entries) => touches(entries, "songs", song))
  return sorted(new Set(data.filter((entry) => entry.type === type && entry.at === published).map((entry) => String(entry.id))))
}

/** Every id a paginated public list shows. */
const listIds = async (path: string, key: (item: any) => string | number): Promise<Array<string>> => {
  const ids: Array<string> = []
  let cursor = ""
  for (;;) {
    const reply = await request(server.baseUrl, `${path}${path.includes("?") ? "&" : "?"}limit=80${cursor ? `&cursor=${cursor}` : ""}`)
    expect(reply.status).toBe(200)
    for (const item of reply.body.data) ids.push(String(key(item)))
    cursor = reply.body.meta.next_cursor
    if (cursor === "") return ids
  }
}

/** The public catalogue as the public endpoints show it, in the mirror's keys. */
const publicCatalogue = async (): Promise<Set<string>> => {
  const [songs, albums, lists, artists, genres, labels, users] = await Promise.all([
    listIds("/v1/songs", (s) => s.id),
    listIds("/v1/albums", (a) => a.id),
    listIds("/v1/curated-lists", (l) => l.id),
    listIds("/v1/artists", (a) => a.id),
    request(server.baseUrl, "/v1/genres").then((reply) => reply.body.data.map((g: any) => String(g.id)) as Array<string>),
    listIds("/v1/labels", (l) => l.id),
    listIds("/v1/users", (u) => u.username)
  ])
  const rows = new Set<string>()
  const add = (type: string, ids: ReadonlyArray<string>) => ids.forEach((id) => rows.add(`${type}/${id}`))
  add("songs", songs)
  add("albums", albums)
  add("curated_lists", lists)
  add("artists", artists)
  add("genres", genres)
  add("labels", labels)
  add("users", users)
  return rows
}

const sorted = (rows: Set<string>) => [...rows].sort()

/** Every item of a paginated list, or undefined when the list's owner is not public (404). */
const allItems = async (path: string): Promise<Array<unknown> | undefined> => {
  const items: Array<unknown> = []
  let cursor = ""
  for (;;) {
    const reply = await request(server.baseUrl, `${path}${path.includes("?") ? "&" : "?"}limit=80${cursor ? `&cursor=${cursor}` : ""}`)
    if (reply.status === 404) return undefined
    expect(reply.status).toBe(200)
    items.push(...reply.body.data)
    cursor = reply.body.meta.next_cursor
    if (cursor === "") return items
  }
}

const detail = async (path: string): Promise<unknown> => {
  const reply = await request(server.baseUrl, path)
  if (reply.status === 404) return undefined
  expect(reply.status).toBe(200)
  return reply.body.data
}

/**
 * A row's public representation: everything served under its own paths (docs/changes.md), as one
 * text; undefined when it is not public. A user has no detail path: its entry in /v1/users is its own.
 */
const representation = async (key: string): Promise<string | undefined> => {
  const slash = key.indexOf("/")
  const [type, id] = [key.slice(0, slash), key.slice(slash + 1)]
  const parts = async (...paths: ReadonlyArray<Promise<unknown>>) => {
    const bodies = await Promise.all(paths)
    return bodies.some((body) => body === undefined) ? undefined : JSON.stringify(bodies)
  }
  switch (type) {
    case "songs":
      return parts(detail(`/v1/songs/${id}`), detail(`/v1/songs/${id}/contributors`))
    case "albums":
      return parts(detail(`/v1/albums/${id}`))
    case "curated_lists":
      return parts(detail(`/v1/curated-lists/${id}`))
    case "artists":
      return parts(detail(`/v1/artists/${id}`), allItems(`/v1/artists/${id}/songs`), allItems(`/v1/artists/${id}/albums`))
    case "labels":
      return parts(detail(`/v1/labels/${id}`), allItems(`/v1/labels/${id}/songs`))
    case "genres": {
      const genres = await request(server.baseUrl, "/v1/genres")
      const genre = (genres.body.data as Array<{ id: number; slug: string }>).find((g) => String(g.id) === id)
      if (genre === undefined) return undefined
      return parts(detail(`/v1/genres/${genre.slug}`), allItems(`/v1/genres/${genre.slug}/songs`))
    }
    case "users": {
      const users = (await allItems("/v1/users")) as Array<{ username: string }>
      const entry = users.find((u) => u.username === id)
      if (entry === undefined) return undefined
      const name = encodeURIComponent(id)
      return parts(Promise.resolve(entry), allItems(`/v1/users/${name}/contributions`), allItems(`/v1/users/${name}/loves`))
    }
  }
  throw new Error(`unknown type ${type}`)
}

/** Milliseconds from the database's clock to the song's `published_at` (negative once past). */
const msUntilPublished = async (song: number) => {
  const [row] = await server.sql<{ ms: number }>(
    `SELECT (extract(epoch FROM published_at - clock_timestamp()) * 1000)::int AS ms FROM songs WHERE id = $1`,
    [song]
  )
  return row!.ms
}

/** Waits past any schedule due within the next `withinMs`, so that both sides are read on one side of it. */
const settleSchedules = async (withinMs = 2000) => {
  const [row] = await server.sql<{ wait_ms: number | null }>(
    `SELECT (extract(epoch FROM max(published_at) - clock_timestamp()) * 1000)::int AS wait_ms FROM (
       SELECT published_at FROM songs WHERE published_at > clock_timestamp() AND published_at < clock_timestamp() + $1 * interval '1 millisecond'
       UNION ALL SELECT published_at FROM albums WHERE published_at > clock_timestamp() AND published_at < clock_timestamp() + $1 * interval '1 millisecond'
     ) x`,
    [withinMs]
  )
  if (row?.wait_ms !== null && row?.wait_ms !== undefined) await Bun.sleep(row.wait_ms + 150)
}

/**
 * The feed may lag while any transaction that could still write a change is open (the cluster
 * is shared: an autovacuum's ANALYZE takes a transaction id too), so a mismatch is retried for a
 * few seconds; a change the feed lost stays a mismatch.
 */
const expectMirrorEqualsCatalogue = async (mirror: Mirror) => {
  // the step's own entries read first: settling waits past a schedule the step wrote, and an entry
  // read after it fell due would find the row as it was before the step (an upsert of nothing new)
  await mirror.catchUp()
  let expected: Array<string> = []
  for (let attempt = 0; attempt < 20; attempt++) {
    await settleSchedules()
    await mirror.catchUp()
    expected = sorted(await publicCatalogue())
    if (JSON.stringify(sorted(mirror.rows)) === JSON.stringify(expected)) break
    await Bun.sleep(200)
  }
  expect(sorted(mirror.rows)).toEqual(expected)
}

describe("change feed", () => {
  test("a mirror that starts empty gets the public catalogue, and nothing hidden", async () => {
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    for (const hidden of ["songs/10", "songs/11", "songs/12", "albums/3", "curated_lists/3", "artists/10", "users/canary_banned"]) {
      expect(mirror.rows.has(hidden)).toBe(false)
    }
  })

  test("the feed reveals nothing of rows never public: no entry names them, not even a remove", async () => {
    const before = new Mirror()
    await before.catchUp()
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (900, 'CANARY Draft', 'draft', '2020-01-01', NULL)`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (900, 1, 10, 1)`)
    await server.sql(`UPDATE songs SET title = 'CANARY Draft 2' WHERE id = 900`)
    await server.sql(`DELETE FROM credits WHERE song_id = 900`)
    await server.sql(`DELETE FROM songs WHERE id = 900`)
    // a public edit after the draft's: once it shows, the draft's touches have been read too
    await server.sql(`UPDATE songs SET title = title || '!' WHERE id = 2`)
    const data = await readUntil(before.cursor, (entries) => touches(entries, "songs", 2))
    expect(touches(data, "songs", 2)).toBe(true)
    expect(JSON.stringify(data)).not.toContain('"id":900')
    expect(data.filter((entry) => entry.type === "artists" && entry.id === 10)).toEqual([])
  })

  test("the cursor comes back unchanged when nothing changed; entries have the documented shape", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    const again = await readPage(mirror.cursor)
    expect(again.data).toEqual([])
    expect(again.meta).toEqual({ total: 0, limit: 100, offset: 0, next_cursor: mirror.cursor! })
    await server.sql(`UPDATE songs SET title = 'Cindai!' WHERE id = 1`)
    const data = await readUntil(mirror.cursor, (entries) => touches(entries, "songs", 1))
    expect(data).toContainEqual(expect.objectContaining({ type: "songs", id: 1, change: "upsert" }))
    for (const entry of data) expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const users = data.filter((entry) => entry.type === "users")
    for (const entry of users) expect(typeof entry.id).toBe("string")
  })

  test("limit pages the feed; a small limit reaches the same mirror", async () => {
    const small = new Mirror()
    await small.catchUp(7)
    const large = new Mirror()
    await large.catchUp(1000)
    expect(sorted(small.rows)).toEqual(sorted(large.rows))
    const first = await readPage(undefined, 3)
    expect(first.data.length).toBeLessThanOrEqual(3)
    expect(first.meta.limit).toBe(3)
  })

  test("a song scheduled for later appears when its time comes, with no write at that moment", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    // far enough ahead that the writes and the catch-up before it end in time on a loaded machine
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (901, 'Soon', 'soon', '2020-01-01', now() + interval '5 seconds')`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (901, 1, 8, 1)`)
    await server.sql(`DELETE FROM credits WHERE artist_id = 8 AND song_id <> 901`)
    await mirror.catchUp()
    // read before its time (else the two checks below would say nothing)
    expect(await msUntilPublished(901)).toBeGreaterThan(0)
    expect(mirror.rows.has("songs/901")).toBe(false)
    expect(mirror.rows.has("artists/8")).toBe(false)
    await Bun.sleep((await msUntilPublished(901)) + 150)
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/901")).toBe(true)
    expect(mirror.rows.has("artists/8")).toBe(true)
  })

  testWhen(onPostgres, "two writers' transactions interleaved need a PostgreSQL server")("a transaction that commits late is not skipped by a reader that read past later ones", async () => {
    const [early, late] = writers as [pg.Client, pg.Client]
    const mirror = new Mirror()
    await mirror.catchUp()
    await early.query("BEGIN")
    await early.query(`UPDATE songs SET published_at = NULL WHERE id = 3`)
    await late.query("BEGIN")
    await late.query(`UPDATE songs SET title = title || '.' WHERE id = 4`)
    await late.query("COMMIT")
    await mirror.catchUp()
    await early.query("COMMIT")
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/3")).toBe(false)
    await server.sql(`UPDATE songs SET published_at = '2020-01-03T00:00:00Z' WHERE id = 3`)
    await expectMirrorEqualsCatalogue(mirror)
  })

  test("a handle change removes the old username and adds the new one; a ban removes it", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    await server.sql(`UPDATE members SET username = 'zul_new' WHERE id = 6`)
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("users/zul")).toBe(false)
    expect(mirror.rows.has("users/zul_new")).toBe(true)
    await server.sql(`UPDATE members SET is_banned = true WHERE id = 6`)
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("users/zul_new")).toBe(false)
    await server.sql(`UPDATE members SET is_banned = false, username = 'zul' WHERE id = 6`)
    await expectMirrorEqualsCatalogue(mirror)
  })

  test("linking a hidden and a scheduled song to public rows adds no entry; at its time the song and the public rows it changes appear, at that time", async () => {
    const marker = async () => {
      const mirror = new Mirror()
      await mirror.catchUp()
      return mirror.cursor
    }
    const alone = await markerEntries(await marker())
    expect(alone).toContain("songs/8/upsert")

    const since = await marker()
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES
                        (910, 'CANARY Hidden Link', 'hidden-link', '2020-01-01', NULL),
                        (911, 'Soon Linked', 'soon-linked', '2020-01-01', clock_timestamp() + interval '4 seconds')`)
    for (const id of [910, 911]) {
      await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (${id}, 1, 4, 1)`)
      await server.sql(`INSERT INTO song_genres (song_id, genre_id) VALUES (${id}, 3)`)
      await server.sql(`INSERT INTO song_labels (song_id, label_id) VALUES (${id}, 3)`)
      await server.sql(`INSERT INTO album_tracks (album_id, position, song_id) VALUES (2, ${id}, ${id})`)
      await server.sql(`INSERT INTO song_versions (song_id, original_song_id) VALUES (${id}, 4)`)
      await server.sql(`INSERT INTO curated_list_songs (list_id, position, song_id) VALUES (1, ${id}, ${id})`)
      await server.sql(`INSERT INTO contributions (member_id, song_id, action) VALUES (6, ${id}, 'add')`)
      await server.sql(`INSERT INTO loves (member_id, song_id) VALUES (2, ${id})`)
      await server.sql(`UPDATE songs SET title = title || '!' WHERE id = ${id}`)
    }
    expect(await markerEntries(since)).toEqual(alone)

    const [{ published }] = await server.sql<{ published: string }>(
      `SELECT to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS published FROM songs WHERE id = 911`
    ) as [{ published: string }]
    const before = await marker()
    // the links were all written before the song's time (else it was public while they were)
    expect(Date.parse(published)).toBeGreaterThan(Date.now())
    await Bun.sleep(Math.max(0, Date.parse(published) - Date.now()) + 200)
    const data = await readUntil(before, (entries) => touches(entries, "songs", 911))
    // the song, and every public row whose paths show it now: its performer, genre, label, album (and
    // the album's list and the performer of its other track, as the album entry counts its songs and
    // names nobody), list, the song it is a version of, the member who added it and the one who loves it
    expect(sorted(new Set(data.map((entry) => `${entry.type}/${entry.id}/${entry.change}/${entry.at}`)))).toEqual(
      sorted(new Set(["songs/911", "artists/4", "artists/3", "genres/3", "labels/3", "albums/2", "curated_lists/1", "curated_lists/2", "songs/4", "users/zul", "users/sitinurhaliza"]
        .map((row) => `${row}/upsert/${published}`)))
    )
    expect(JSON.stringify(data)).not.toContain('"id":910')
  })

  test("a schedule withdrawn before its time leaves no trace, also after that time", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    const alone = await markerEntries(mirror.cursor)
    await mirror.catchUp()
    const ids = [920, 921, 922, 923, 924]
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at)
                      SELECT id, 'Withdrawn ' || id, 'withdrawn', '2020-01-01', clock_timestamp() + interval '10 seconds'
                      FROM unnest(ARRAY[${ids}]) AS id`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) SELECT id, 1, 4, 1 FROM unnest(ARRAY[${ids}]) AS id`)
    await server.sql(`INSERT INTO song_genres (song_id, genre_id) SELECT id, 3 FROM unnest(ARRAY[${ids}]) AS id`)
    await server.sql(`INSERT INTO album_tracks (album_id, position, song_id) SELECT 2, id, id FROM unnest(ARRAY[${ids}]) AS id`)
    // (ten seconds: the writes below run beside other test files' workers)
    // unpublished, deleted, moved a year on, moved to a time already past its links' reach (a hard delete), and links removed
    await server.sql(`UPDATE songs SET published_at = NULL WHERE id = 920`)
    await server.sql(`UPDATE songs SET deleted_at = now() WHERE id = 921`)
    await server.sql(`UPDATE songs SET published_at = published_at + interval '1 year' WHERE id = 922`)
    await server.sql(`DELETE FROM credits WHERE song_id = 923`)
    await server.sql(`DELETE FROM song_genres WHERE song_id = 923`)
    await server.sql(`DELETE FROM album_tracks WHERE song_id = 923`)
    await server.sql(`DELETE FROM credits WHERE song_id = 924`)
    await server.sql(`DELETE FROM song_genres WHERE song_id = 924`)
    await server.sql(`DELETE FROM album_tracks WHERE song_id = 924`)
    await server.sql(`DELETE FROM songs WHERE id = 924`)
    await server.sql(`UPDATE songs SET published_at = NULL WHERE id = 923`)
    const [{ wait }] = await server.sql<{ wait: number }>(
      `SELECT (extract(epoch FROM min(published_at) - interval '1 year' - clock_timestamp()) * 1000)::int AS wait FROM songs WHERE id = 922`
    ) as [{ wait: number }]
    // every withdrawal was written before the time it withdrew (else the songs were public a moment)
    expect(wait).toBeGreaterThan(0)
    await Bun.sleep(wait + 300)
    expect(await markerEntries(mirror.cursor)).toEqual(alone)
  })

  test("who shows an album's entry, changed after a schedule on it was written, is announced at its time", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    const due = await dueSoon()
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES
                        (940, 'Soon On Cindai', 'soon-on-cindai', '2020-01-01', '${due}'), (941, 'Soon On Hati', 'soon-on-hati', '2020-01-01', '${due}')`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (940, 1, 1, 1), (941, 1, 7, 1)`)
    await server.sql(`INSERT INTO album_tracks (album_id, position, song_id) VALUES (1, 940, 940), (4, 941, 941)`)
    await server.sql(`INSERT INTO albums (id, title, slug, album_type, released_at, published_at) VALUES (940, 'Soon Album', 'soon-album', 'album', '2020-01-01', '${due}')`)
    await server.sql(`INSERT INTO album_tracks (album_id, position, song_id) VALUES (940, 1, 6)`)
    // after the schedules: Cindai (which names Siti Nurhaliza) names Amy too; Hati and the
    // scheduled album name nobody, so they are listed under their tracks' performers, who change:
    // a performer credited on Hati's public track (Search), a public track added to Hati (Ravi's),
    // a performer credited on the scheduled album's track (Aishah)
    await server.sql(`INSERT INTO album_artists (album_id, position, artist_id) VALUES (1, 9, 4)`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (5, 9, 3, 1)`)
    await server.sql(`INSERT INTO album_tracks (album_id, position, song_id) VALUES (4, 942, 7)`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (6, 9, 6, 1)`)
    await mirror.catchUp()
    // each of them shows one of these albums, whose song count moves at that time
    expect(await dueWith("artists", mirror.cursor, 940)).toEqual(expect.arrayContaining(["3", "4", "6", "9"]))
    await server.sql(`DELETE FROM album_artists WHERE album_id = 1 AND position = 9`)
    await server.sql(`DELETE FROM credits WHERE position = 9 AND song_id IN (5, 6)`)
    await server.sql(`DELETE FROM album_tracks WHERE album_id IN (1, 4, 940) AND song_id IN (940, 941, 7, 6)`)
    await server.sql(`DELETE FROM credits WHERE song_id IN (940, 941)`)
    await server.sql(`DELETE FROM songs WHERE id IN (940, 941)`)
    await server.sql(`DELETE FROM albums WHERE id = 940`)
  })

  test("a group's due touch for a scheduled member follows the member's visibility, moved after the schedule was written", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    const due = await dueSoon()
    // Search (a group, public) with member 950, visible through song 950; group 960 (public through
    // song 962) with member 961, visible through nothing
    await server.sql(`INSERT INTO artists (id, name, slug, is_group) VALUES (950, 'Soon Member', 'soon-member', false),
                        (960, 'Soon Group', 'soon-group', true), (961, 'Soon Other Member', 'soon-other-member', false)`)
    await server.sql(`INSERT INTO artist_memberships (group_id, member_id) VALUES (3, 950), (960, 961)`)
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES
                        (950, 'Now Member', 'now-member', '2020-01-01', '2020-01-01'), (951, 'Soon Member', 'soon-member', '2020-01-01', '${due}'),
                        (962, 'Now Group', 'now-group', '2020-01-01', '2020-01-01'), (963, 'Soon Other', 'soon-other', '2020-01-01', '${due}'),
                        (964, 'Later Other', 'later-other', '2020-01-01', NULL)`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES
                        (950, 1, 950, 1), (951, 1, 950, 1), (962, 1, 960, 1), (963, 1, 961, 1), (964, 1, 961, 1)`)
    // after the schedules: 950 hidden until its scheduled song's time, so Search shows it again then;
    // 961 visible now, so group 960 shows nothing new at that time
    await server.sql(`UPDATE songs SET published_at = NULL WHERE id = 950`)
    await server.sql(`UPDATE songs SET published_at = '2020-01-01' WHERE id = 964`)
    await mirror.catchUp()
    expect(await dueWith("artists", mirror.cursor, 951)).toEqual(["3", "950", "961"])
    await server.sql(`DELETE FROM credits WHERE song_id IN (950, 951, 962, 963, 964)`)
    await server.sql(`DELETE FROM songs WHERE id IN (950, 951, 962, 963, 964)`)
    await server.sql(`DELETE FROM artist_memberships WHERE member_id IN (950, 961)`)
    await server.sql(`DELETE FROM artists WHERE id IN (950, 960, 961)`)
  })

  test("a list whose content type moved after a schedule on it was written is announced at its time as it shows then", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    const due = await dueSoon()
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (945, 'Soon Listed', 'soon-listed', '2020-01-01', '${due}')`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (945, 1, 1, 1)`)
    // on the songs-list 1 and, as a song entry it does not show, on the albums-list 2
    await server.sql(`INSERT INTO curated_list_songs (list_id, position, song_id) VALUES (1, 945, 945), (2, 945, 945)`)
    // after the schedule: list 1 shows albums, list 2 songs
    await server.sql(`UPDATE curated_lists SET content_type = CASE id WHEN 1 THEN 'albums' ELSE 'songs' END WHERE id IN (1, 2)`)
    await mirror.catchUp()
    expect(await dueWith("curated_lists", mirror.cursor, 945)).toEqual(["2"])
    await server.sql(`UPDATE curated_lists SET content_type = CASE id WHEN 1 THEN 'songs' ELSE 'albums' END WHERE id IN (1, 2)`)
    await server.sql(`DELETE FROM curated_list_songs WHERE song_id = 945`)
    await server.sql(`DELETE FROM credits WHERE song_id = 945`)
    await server.sql(`DELETE FROM songs WHERE id = 945`)
  })

  test("an update that leaves its rows as they were writes nothing: no entry, no kept row, on every table the feed follows", async () => {
    const mirror = new Mirror()
    await mirror.catchUp()
    const alone = await markerEntries(mirror.cursor)
    await mirror.catchUp()
    const followed = await server.sql<{ readonly table: string; readonly column: string }>(
      `SELECT DISTINCT c.relname AS table,
              (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                 AND a.attidentity = '' AND a.attgenerated = '' ORDER BY a.attnum LIMIT 1) AS column
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname LIKE 'feed\\_%\\_update'`
    )
    expect(followed.map((row) => row.table)).toEqual(expect.arrayContaining(["songs", "credits", "album_tracks", "members", "loves"]))
    const tables = await server.sql<{ readonly name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace`
    )
    const [first] = await server.sql<{ readonly xid: string }>(`SELECT txid_current()::text AS xid`)
    for (const { table, column } of followed) {
      await server.sql(`UPDATE ${table} SET ${column} = ${column} WHERE ctid IN (SELECT ctid FROM ${table} LIMIT 20)`)
    }
    await server.sql(`UPDATE songs SET title = title, published_at = published_at, deleted_at = deleted_at WHERE id <= 50`)
    const [last] = await server.sql<{ readonly xid: string }>(`SELECT txid_current()::text AS xid`)
    const written = await server.sql<{ readonly name: string; readonly rows: number }>(
      tables.map(({ name }) =>
        `SELECT '${name}' AS name, count(*)::int AS rows FROM ${name}
         WHERE xmin::text::bigint > ${first!.xid} AND xmin::text::bigint < ${last!.xid}`
      ).join(" UNION ALL ")
    )
    expect(written.filter((table) => table.rows > 0)).toEqual([])
    expect(await markerEntries(mirror.cursor)).toEqual(alone)
  })

  test("hidden writes between two public changes move no position: a limit=1 reader pages the same way", async () => {
    /** Pages of limit=1 from the cursor before a public edit to the entry of the next one. */
    const walk = async (hidden: (round: number) => Promise<void>, round: number) => {
      const mirror = new Mirror()
      await mirror.catchUp()
      await server.sql(`UPDATE songs SET title = title || '.' WHERE id = 8`)
      await hidden(round)
      await server.sql(`UPDATE songs SET title = title || '.' WHERE id = 5`)
      await readUntil(mirror.cursor, (entries) => touches(entries, "songs", 5))
      const pages: Array<string> = []
      let cursor = mirror.cursor
      for (let page = 0; page < 200; page++) {
        const { data, meta } = await readPage(cursor, 1)
        pages.push(data.map((entry) => `${entry.type}/${entry.id}`).join(","))
        if (meta.next_cursor === cursor) break
        // the cursor is sealed: nothing in it reads as a position
        expect(() => JSON.parse(Buffer.from(meta.next_cursor, "base64url").toString())).toThrow()
        cursor = meta.next_cursor
      }
      return pages
    }
    const none = await walk(async () => {}, 0)
    const many = await walk(async (round) => {
      for (let i = 0; i < 12; i++) {
        const id = 930 + round * 20 + i
        await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES
                            (${id}, 'CANARY Quiet', 'quiet', '2020-01-01', ${i % 2 === 0 ? "NULL" : "now() + interval '1 day'"})`)
        await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (${id}, 1, 4, 1)`)
        await server.sql(`INSERT INTO song_genres (song_id, genre_id) VALUES (${id}, 2)`)
        await server.sql(`UPDATE songs SET title = 'CANARY Quieter' WHERE id = ${id}`)
      }
    }, 1)
    expect(many).toEqual(none)
    await server.sql(`DELETE FROM song_genres WHERE song_id BETWEEN 950 AND 969;
                      DELETE FROM credits WHERE song_id BETWEEN 950 AND 969;
                      DELETE FROM songs WHERE id BETWEEN 950 AND 969`)
  })

  test("a cursor whose horizon is ahead of the reader's clock (issued by a replica whose clock runs ahead) is answered: nothing is read until the clock passes it; a minute ahead is bad_request", async () => {
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    const [secret] = await server.sql<{ key: string }>(CURSOR_SECRET_SQL)
    const ahead = withHorizonAhead(mirror.cursor!, secret!.key, 1500)
    await server.sql("UPDATE songs SET title = title || '!' WHERE id = 3")
    // before the reader's clock reaches that horizon: an empty page and the cursor as given
    const early = await readPage(ahead)
    expect({ data: early.data, cursor: early.meta.next_cursor }).toEqual({ data: [], cursor: ahead })
    await Bun.sleep(1600)
    const later = await readUntil(ahead, (entries) => touches(entries, "songs", 3))
    expect(later.filter((entry) => entry.type === "songs" && entry.id === 3).map((entry) => entry.change)).toEqual(["upsert"])
    // a horizon further ahead than any clock drift: refused, never clamped (which could skip rows)
    const reply = await request(server.baseUrl, `/v1/changes?since=${withHorizonAhead(mirror.cursor!, secret!.key, 61_000)}`)
    expect({ status: reply.status, code: reply.body.error?.code }).toEqual({ status: 400, code: "bad_request" })
  })

  test("a forged or foreign cursor and a bad limit are bad_request", async () => {
    const songs = await request(server.baseUrl, "/v1/songs?limit=1")
    const foreign = songs.body.meta.next_cursor as string
    const { meta } = await readPage(undefined, 1)
    // a cursor is sealed: one byte changed, or a position written in the clear, is not one
    const bytes = Buffer.from(meta.next_cursor, "base64url")
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 1
    const tampered = bytes.toString("base64url")
    const clear = Buffer.from(JSON.stringify({ s: "changes", o: 0, k: ["1", "2", 3, "", "", 9e15] })).toString("base64url")
    for (const query of [`since=${foreign}`, "since=abc", `since=${tampered}`, `since=${clear}`, "since=", "limit=0", "limit=1001", "limit=01"]) {
      const reply = await request(server.baseUrl, `/v1/changes?${query}`)
      expect(reply.status).toBe(400)
      expect(reply.body.error.code).toBe("bad_request")
    }
  })
})

type Step =
  | { readonly kind: "edit"; readonly edit: Edit }
  | { readonly kind: "interleaved"; readonly first: Edit; readonly second: Edit }
  | { readonly kind: "wait" }
  /** one edit of every kind, in a random order: the feed followed after each, the catalogue compared after the last */
  | { readonly kind: "burst"; readonly edits: ReadonlyArray<Edit> }

const editsOf = (step: Step): ReadonlyArray<Edit> =>
  step.kind === "edit" ? [step.edit] : step.kind === "interleaved" ? [step.first, step.second] : step.kind === "burst" ? step.edits : []

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: editArb.map((edit) => ({ kind: "edit" as const, edit })) },
  {
    weight: 2,
    arbitrary: fc.record({ first: editArb, second: quietEditArb }).map(({ first, second }) => ({ kind: "interleaved" as const, first, second }))
  },
  { weight: 1, arbitrary: fc.constant({ kind: "wait" as const }) }
)

/** Random steps with a burst of every kind of edit among them: each run edits every row the feed follows. */
const runArb: fc.Arbitrary<ReadonlyArray<Step>> = fc
  .tuple(fc.array(stepArb, { minLength: 4, maxLength: 10 }), everyKindArb, fc.nat())
  .map(([steps, edits, at]) => steps.toSpliced(at % (steps.length + 1), 0, { kind: "burst", edits }))

/**
 * Nothing the mirror keeps is stale: every change of a representation was announced. Retried a few
 * times like expectMirrorEqualsCatalogue (a schedule may fall due between the catch-up and the check).
 */
const expectNothingStale = async (mirror: Mirror, step: Step) => {
  let stale: Array<string> = []
  for (let attempt = 0; attempt < 10; attempt++) {
    await settleSchedules()
    await mirror.catchUp()
    stale = await mirror.stale()
    if (stale.length === 0) break
    await Bun.sleep(300)
  }
  expect({ step, stale }).toEqual({ step, stale: [] })
}

const edit = (e: Edit): Step => ({ kind: "edit", edit: e })
const wait: Step = { kind: "wait" }

/**
 * Links through an album, a group or a membership, each path run first (fast-check's examples):
 * a row on the way that is hidden makes the write silent on the other side; an artist shown inside
 * an album entry is announced where the entry shows.
 */
const LINK_PATHS: ReadonlyArray<ReadonlyArray<Step>> = [
  // a track on a hidden album that names nobody, then on a scheduled one, which then falls due
  [edit({ kind: "track", song: 3, album: 5 }), edit({ kind: "untrack", song: 3, album: 5 }),
   edit({ kind: "albumSchedule", album: 4 }), edit({ kind: "track", song: 3, album: 4 }), wait],
  // an invisible artist edited, in and out of a public group; a visible one edited
  [edit({ kind: "artistName", artist: 12, salt: 1 }), edit({ kind: "artistAvatar", artist: 12, salt: 2 }),
   edit({ kind: "membership", member: 12 }), edit({ kind: "membership", member: 12 }), edit({ kind: "artistAvatar", artist: 4, salt: 3 })],
  // a public song on a hidden album naming a public artist, held by a public albums-list: edited, then due
  [edit({ kind: "released", song: 4 }), edit({ kind: "title", song: 4 }), edit({ kind: "released", song: 1 }),
   edit({ kind: "schedule", song: 4 }), wait],
  // an artist shown in the entry of an album naming nobody, in a public albums-list; a writer renamed
  [edit({ kind: "artistName", artist: 3, salt: 4 }), edit({ kind: "artistName", artist: 2, salt: 5 })],
  // a writer of public songs on a public songs-list who performs a hidden song on the same list, renamed
  [edit({ kind: "credit", song: 10, artist: 2 }), edit({ kind: "artistName", artist: 2, salt: 6 }), edit({ kind: "uncredit", song: 10, artist: 2 })],
  // an invisible artist in a public group made visible and hidden by a song, an album, and an album's due time
  [edit({ kind: "membership", member: 10 }), edit({ kind: "publish", song: 10 }), edit({ kind: "unpublish", song: 10 }),
   edit({ kind: "albumPublish", album: 3 }), edit({ kind: "albumUnpublish", album: 3 }), edit({ kind: "albumSchedule", album: 3 }), wait,
   edit({ kind: "albumUnpublish", album: 3 }), edit({ kind: "schedule", song: 190 }), wait],
  // a scheduled album naming nobody whose only track leaves the public catalogue before it falls
  // due: its due touch no longer names the track's performer (a public artist)
  [edit({ kind: "credit", song: 4, artist: 3 }), edit({ kind: "albumArtist", album: 6, artist: 4 }), edit({ kind: "albumSchedule", album: 6 }),
   edit({ kind: "delete", song: 4 }), wait]
]

/** A row's detail (for a user, its entry in /v1/users) as compact JSON; undefined when it is not public. */
const detailJson = async (key: string): Promise<string | undefined> => {
  const slash = key.indexOf("/")
  const [type, id] = [key.slice(0, slash), key.slice(slash + 1)]
  const json = (data: unknown) => (data === undefined ? undefined : JSON.stringify(data))
  switch (type) {
    case "curated_lists":
      return json(await detail(`/v1/curated-lists/${id}`))
    case "genres": {
      const genres = (await request(server.baseUrl, "/v1/genres")).body.data as Array<{ id: number; slug: string }>
      const genre = genres.find((g) => String(g.id) === id)
      return genre === undefined ? undefined : json(await detail(`/v1/genres/${genre.slug}`))
    }
    case "users":
      return json(((await allItems("/v1/users")) as Array<{ username: string }>).find((u) => u.username === id))
    default:
      return json(await detail(`/v1/${type}/${id}`))
  }
}

/**
 * A copy built as a mirror starts (docs/changes.md, "Snapshots"): the rows of the snapshot that
 * `bun run snapshot` wrote into `out`, each as its detail's JSON, then the feed from the manifest's
 * cursor (an upsert reads the row's detail again, a remove deletes it).
 */
class SnapshotCopy {
  readonly rows = new Map<string, string>()
  cursor: string

  constructor(out: string) {
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as {
      cursor: string
      files: Array<{ type: string; name: string }>
    }
    this.cursor = manifest.cursor
    for (const file of manifest.files) {
      for (const line of new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(out, file.name)))).split("\n")) {
        if (line === "") continue
        const row = JSON.parse(line)
        this.rows.set(`${file.type}/${file.type === "users" ? row.username : row.id}`, JSON.stringify(row))
      }
    }
  }

  async catchUp() {
    for (let round = 0; round < 500; round++) {
      const { data, meta } = await readPage(this.cursor, 1000)
      for (const entry of data) {
        const key = `${entry.type}/${entry.id}`
        const json = entry.change === "upsert" ? await detailJson(key) : undefined
        if (json === undefined) this.rows.delete(key)
        else this.rows.set(key, json)
      }
      if (meta.next_cursor === this.cursor) return
      this.cursor = meta.next_cursor
    }
    throw new Error("the feed never caught up")
  }
}

/** The copy holds every public row, each as its detail shows it now, and nothing else; retried like expectMirrorEqualsCatalogue. */
const expectCopyEqualsCatalogue = async (copy: SnapshotCopy) => {
  let [held, expected] = [new Map<string, string | undefined>(), new Map<string, string | undefined>()]
  for (let attempt = 0; attempt < 20; attempt++) {
    await settleSchedules()
    await copy.catchUp()
    held = new Map([...copy.rows].sort(([a], [b]) => (a < b ? -1 : 1)))
    expected = new Map()
    for (const key of sorted(await publicCatalogue())) expected.set(key, await detailJson(key))
    if (JSON.stringify([...held]) === JSON.stringify([...expected])) break
    await Bun.sleep(200)
  }
  expect([...held]).toEqual([...expected])
}

/**
 * Another database's writers on the same server, as another tenant's: short transactions, each
 * with a transaction id, starting and ending all the time. The reader lets by those it sees running
 * in another database and waits for one it cannot place (one ending as it reads), so the feed is
 * sometimes read in two pages between two of our transactions.
 */
const writersBeside = async (connections: number) => {
  const database = await postgresDatabase((await testServerUrl())!)
  const clients = Array.from({ length: connections }, () => new pg.Client({ connectionString: database.url }))
  await Promise.all(clients.map((client) => client.connect()))
  await clients[0]!.query("CREATE TABLE beside (n integer)")
  let running = true
  const loops = clients.map(async (client) => {
    while (running) {
      await client.query("BEGIN")
      await client.query("INSERT INTO beside VALUES (1)")
      await Bun.sleep(Math.random() * 10)
      await client.query("COMMIT")
    }
  })
  return {
    stop: async () => {
      running = false
      await Promise.all(loops)
      await Promise.all(clients.map((client) => client.end()))
      await database.drop()
    }
  }
}

/** Two writers' transactions interleaved, another database's beside them, and `bun run snapshot` beside the service: a PostgreSQL server. */
const testOnPostgres = testWhen(onPostgres, ON_POSTGRES_ONLY)

describe("change feed exactness", () => {
  slow(testOnPostgres, "a property test: random edits of every kind, each run replayed by a mirror and a snapshot, another database written beside", 10)("a mirror replaying the feed equals the public catalogue after every random edit, and no entry names a row whose representation did not change; so does a copy from a snapshot taken among the edits and the feed from its cursor; another database's transactions come and go beside them", async () => {
    const [first, second] = writers as [pg.Client, pg.Client]
    const mirror = new Mirror(true)
    await expectMirrorEqualsCatalogue(mirror)
    const exercised = new Set<EditKind>()
    const beside = await writersBeside(6)
    try {
      await assertProperty(
        fc.asyncProperty(runArb, fc.nat(), async (steps, at) => {
          // a snapshot at a random point among the steps (or after the last), inside an interleaved
          // step while its first transaction is still open
          const snapshotAt = at % (steps.length + 1)
          const out = mkdtempSync(join(tmpdir(), "changes-snapshot-"))
          const takeSnapshot = async () => expect(await runSnapshot(server.database, out)).toEqual({ code: 0, stderr: expect.not.stringContaining("error") })
          try {
            for (const [index, step] of steps.entries()) {
              if (index === snapshotAt && step.kind !== "interleaved") await takeSnapshot()
              for (const one of editsOf(step)) exercised.add(one.kind)
              await clearOfSchedules()
              if (step.kind === "edit") {
                await transaction(first, editSql(step.edit))
              } else if (step.kind === "burst") {
                // caught up after each edit (a later edit of the burst may set a row back as it was);
                // the whole catalogue compared once, after the last
                for (const one of step.edits) {
                  await clearOfSchedules()
                  await transaction(first, editSql(one))
                  await mirror.catchUp()
                  expect({ edit: one, unchanged: mirror.unchanged }).toEqual({ edit: one, unchanged: [] })
                }
              } else if (step.kind === "wait") {
                await Bun.sleep(2600)
              } else {
                // the first transaction takes the smaller xid, the second commits first
                const firstFrom = Date.now()
                await first.query("BEGIN")
                await first.query(editSql(step.first))
                const secondCommitted = await commitBeside(second, editSql(step.second))
                if (index === snapshotAt) await takeSnapshot()
                await mirror.catchUp()
                await first.query("COMMIT")
                transactions.push({ from: firstFrom, to: Date.now() })
                if (!secondCommitted) await transaction(second, editSql(step.second))
              }
              await expectMirrorEqualsCatalogue(mirror)
              await expectNothingStale(mirror, step)
              expect({ step, unchanged: mirror.unchanged }).toEqual({ step, unchanged: [] })
            }
            if (snapshotAt === steps.length) await takeSnapshot()
            // the snapshot plus the feed from its cursor reach the catalogue at the end, as the feed alone does
            await expectCopyEqualsCatalogue(new SnapshotCopy(out))
          } finally {
            rmSync(out, { recursive: true, force: true })
          }
        }),
        // each fixed path takes its snapshot before its last step (a wait: a schedule falls due after it)
        20261123,
        { numRuns: 6 + LINK_PATHS.length, examples: LINK_PATHS.map((steps): [ReadonlyArray<Step>, number] => [[...steps], steps.length - 1]), endOnFailure: true }
      )
    } finally {
      await beside.stop()
    }
    // every kind of edit the feed follows was made, over the runs
    expect(EDIT_KINDS.filter((kind) => !exercised.has(kind))).toEqual([])
  })
})
