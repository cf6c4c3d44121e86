import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fc from "fast-check"
import pg from "pg"
import { Change } from "../src/Domain/Change.js"
import { ListEnvelope } from "../src/Domain/Envelope.js"
import { decodeWith, request } from "./support/http.js"
import { startServer, type TestServer } from "./support/server.js"

/**
 * The change feed over its own server and database (the property test edits rows freely).
 * The response cache is off (CACHE_TTL_SECONDS=0 in the test settings): a cached page would be stale.
 */
const ChangeList = ListEnvelope(Change, "ChangeList")
let server: TestServer
let writers: Array<pg.Client> = []

beforeAll(async () => {
  server = await startServer()
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

/** A client's copy: type/id -> present, kept by replaying the feed. */
class Mirror {
  readonly rows = new Set<string>()
  cursor: string | undefined = undefined
  readonly removedNever: Array<string> = []

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
      }
      if (meta.next_cursor === this.cursor) return
      this.cursor = meta.next_cursor
    }
    throw new Error("the feed never caught up")
  }
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

/** Waits past any schedule due within the next moments, so that both sides are read on one side of it. */
const settleSchedules = async () => {
  const [row] = await server.sql<{ wait_ms: number | null }>(
    `SELECT (extract(epoch FROM max(published_at) - clock_timestamp()) * 1000)::int AS wait_ms FROM (
       SELECT published_at FROM songs WHERE published_at > clock_timestamp() AND published_at < clock_timestamp() + interval '2 seconds'
       UNION ALL SELECT published_at FROM albums WHERE published_at > clock_timestamp() AND published_at < clock_timestamp() + interval '2 seconds'
     ) x`
  )
  if (row?.wait_ms !== null && row?.wait_ms !== undefined) await Bun.sleep(row.wait_ms + 150)
}

/**
 * The feed may lag while any transaction that could still write a change is open (the cluster
 * is shared: an autovacuum's ANALYZE takes a transaction id too), so a mismatch is retried for a
 * few seconds; a change the feed lost stays a mismatch.
 */
const expectMirrorEqualsCatalogue = async (mirror: Mirror) => {
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
    await server.sql(`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (901, 'Soon', 'soon', '2020-01-01', now() + interval '1.5 seconds')`)
    await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (901, 1, 8, 1)`)
    await server.sql(`DELETE FROM credits WHERE artist_id = 8 AND song_id <> 901`)
    await mirror.catchUp()
    expect(mirror.rows.has("songs/901")).toBe(false)
    expect(mirror.rows.has("artists/8")).toBe(false)
    await Bun.sleep(1700)
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/901")).toBe(true)
    expect(mirror.rows.has("artists/8")).toBe(true)
  })

  test("a transaction that commits late is not skipped by a reader that read past later ones", async () => {
    if (writers.length === 0) return
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

  test("a forged or foreign cursor and a bad limit are bad_request", async () => {
    const songs = await request(server.baseUrl, "/v1/songs?limit=1")
    const foreign = songs.body.meta.next_cursor as string
    const { meta } = await readPage(undefined, 1)
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(meta.next_cursor, "base64url").toString()), k: ["1", "2", 3, "4", "5", 9e15] })
    ).toString("base64url")
    for (const query of [`since=${foreign}`, "since=abc", `since=${forged}`, "since=", "limit=0", "limit=1001", "limit=01"]) {
      const reply = await request(server.baseUrl, `/v1/changes?${query}`)
      expect(reply.status).toBe(400)
      expect(reply.body.error.code).toBe("bad_request")
    }
  })
})

/** One random edit, as SQL on the test database. */
type Edit =
  | { readonly kind: "publish" | "unpublish" | "delete" | "title" | "schedule"; readonly song: number }
  | { readonly kind: "credit" | "uncredit"; readonly song: number; readonly artist: number }
  | { readonly kind: "genre"; readonly song: number; readonly genre: number }
  | { readonly kind: "track" | "untrack"; readonly song: number; readonly album: number }
  | { readonly kind: "listEntry" | "unlistEntry"; readonly song: number; readonly list: number }
  | { readonly kind: "albumPublish" | "albumUnpublish"; readonly album: number }
  | { readonly kind: "ban" | "unban" | "handle"; readonly member: number; readonly salt: number }

const SONGS = [1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 100, 101]
const song = fc.constantFrom(...SONGS)
const artist = fc.integer({ min: 1, max: 11 })
const album = fc.integer({ min: 1, max: 4 })
const member = fc.constantFrom(1, 2, 5, 6, 100, 300)

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom("publish", "unpublish", "delete", "title", "schedule"), song }),
  fc.record({ kind: fc.constantFrom("credit", "uncredit"), song, artist }),
  fc.record({ kind: fc.constant("genre"), song, genre: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constantFrom("track", "untrack"), song, album }),
  fc.record({ kind: fc.constantFrom("listEntry", "unlistEntry"), song, list: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constantFrom("albumPublish", "albumUnpublish"), album }),
  fc.record({ kind: fc.constantFrom("ban", "unban", "handle"), member, salt: fc.integer({ min: 1, max: 1_000_000 }) })
) as fc.Arbitrary<Edit>

const editSql = (edit: Edit): string => {
  switch (edit.kind) {
    case "publish":
      return `UPDATE songs SET published_at = now() - interval '1 minute', deleted_at = NULL WHERE id = ${edit.song}`
    case "unpublish":
      return `UPDATE songs SET published_at = NULL WHERE id = ${edit.song}`
    case "delete":
      return `UPDATE songs SET deleted_at = now() WHERE id = ${edit.song}`
    case "title":
      return `UPDATE songs SET title = left(title, 40) || '~' WHERE id = ${edit.song}`
    case "schedule":
      return `UPDATE songs SET published_at = clock_timestamp() + interval '2.5 seconds', deleted_at = NULL WHERE id = ${edit.song}`
    case "credit":
      return `INSERT INTO credits (song_id, position, artist_id, role_id)
              SELECT ${edit.song}, coalesce(max(position), 0) + 1, ${edit.artist}, 1 FROM credits WHERE song_id = ${edit.song}`
    case "uncredit":
      return `DELETE FROM credits WHERE song_id = ${edit.song} AND artist_id = ${edit.artist}`
    case "genre":
      return `WITH gone AS (DELETE FROM song_genres WHERE song_id = ${edit.song} AND genre_id = ${edit.genre} RETURNING 1)
              INSERT INTO song_genres (song_id, genre_id) SELECT ${edit.song}, ${edit.genre} WHERE NOT EXISTS (SELECT 1 FROM gone)`
    case "track":
      return `INSERT INTO album_tracks (album_id, position, song_id)
              SELECT ${edit.album}, coalesce(max(position), 0) + 1, ${edit.song} FROM album_tracks WHERE album_id = ${edit.album}
              ON CONFLICT DO NOTHING`
    case "untrack":
      return `DELETE FROM album_tracks WHERE album_id = ${edit.album} AND song_id = ${edit.song}`
    case "listEntry":
      return `INSERT INTO curated_list_songs (list_id, position, song_id)
              SELECT ${edit.list}, coalesce(max(position), 0) + 1, ${edit.song} FROM curated_list_songs WHERE list_id = ${edit.list}`
    case "unlistEntry":
      return `DELETE FROM curated_list_songs WHERE list_id = ${edit.list} AND song_id = ${edit.song}`
    case "albumPublish":
      return `UPDATE albums SET published_at = now() - interval '1 minute' WHERE id = ${edit.album}`
    case "albumUnpublish":
      return `UPDATE albums SET published_at = NULL WHERE id = ${edit.album}`
    case "ban":
      return `UPDATE members SET is_banned = true WHERE id = ${edit.member}`
    case "unban":
      return `UPDATE members SET is_banned = false WHERE id = ${edit.member}`
    case "handle":
      return `UPDATE members SET username = 'h${edit.salt}_${edit.member}' WHERE id = ${edit.member}`
  }
}

/**
 * Edits that wait for no lock the other edits take (no kept count moves, rows no other edit
 * touches): safe in a second transaction opened while the first is still open.
 */
const quietEditArb: fc.Arbitrary<Edit> = fc.record({ kind: fc.constant("title" as const), song: fc.integer({ min: 102, max: 110 }) })

type Step =
  | { readonly kind: "edit"; readonly edit: Edit }
  | { readonly kind: "interleaved"; readonly first: Edit; readonly second: Edit }
  | { readonly kind: "wait" }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: editArb.map((edit) => ({ kind: "edit" as const, edit })) },
  {
    weight: 2,
    arbitrary: fc.record({ first: editArb, second: quietEditArb }).map(({ first, second }) => ({ kind: "interleaved" as const, first, second }))
  },
  { weight: 1, arbitrary: fc.constant({ kind: "wait" as const }) }
)

describe("change feed exactness", () => {
  test("a mirror replaying the feed equals the public catalogue after every random edit", async () => {
    if (writers.length === 0) return
    const [first, second] = writers as [pg.Client, pg.Client]
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 4, maxLength: 10 }), async (steps) => {
        for (const step of steps) {
          if (step.kind === "edit") {
            await first.query(editSql(step.edit))
          } else if (step.kind === "wait") {
            await Bun.sleep(2600)
          } else {
            // the first transaction takes the smaller xid, the second commits first
            await first.query("BEGIN")
            await first.query(editSql(step.first))
            await second.query("BEGIN")
            await second.query(editSql(step.second))
            await second.query("COMMIT")
            await mirror.catchUp()
            await first.query("COMMIT")
          }
          await expectMirrorEqualsCatalogue(mirror)
        }
      }),
      { seed: 20261123, numRuns: 6, endOnFailure: true }
    )
  }, 120_000)
})
