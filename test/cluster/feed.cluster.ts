import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import pg from "pg"
import { clusterSql, databaseUrl, proxyUrl, replicaUrl } from "../../cluster/Cluster.js"
import { CURSOR_SECRET_SQL, withHorizonAhead } from "../support/feedCursor.js"
import { cluster, get, standbysCaughtUp as caughtUp } from "./support.js"

/**
 * The change feed followed through the proxy while successive polls land on replicas reading two
 * standbys, one of them held behind (its replay paused and resumed at random), while the primary
 * is edited: plain edits, schedules falling due within a second, a schedule written in a
 * transaction that commits after its own due time, and interleaved transactions.
 */
const state = cluster()
const proxy = proxyUrl(state)
const fresh = state.replicas.find((replica) => replica.reads === "standby1")!
const stale = state.replicas.find((replica) => replica.reads === "standby2")!
let writers: Array<pg.Client> = []

/** Pauses or resumes the second standby's replay (a statement there may itself meet a recovery conflict: retried). */
const replay = (action: "pause" | "resume") => {
  for (let attempt = 0; ; attempt++) {
    try {
      clusterSql(state, "standby2", `SELECT pg_wal_replay_${action}()`)
      return
    } catch (error) {
      if (attempt === 5 || !String(error).includes("conflict with recovery")) throw error
    }
  }
}

/** What the edits here change of who sees what, kept to be put back: the suites after this one expect the fixture's public rows. */
const VISIBILITY = "cluster_feed_test_visibility"

beforeAll(async () => {
  clusterSql(
    state,
    "primary",
    `DROP TABLE IF EXISTS ${VISIBILITY}; CREATE TABLE ${VISIBILITY} AS
       SELECT 'song' AS kind, id, published_at, deleted_at, NULL::boolean AS banned FROM songs
       UNION ALL SELECT 'album', id, published_at, NULL, NULL FROM albums
       UNION ALL SELECT 'member', id, NULL, NULL, is_banned FROM members`
  )
  writers = [0, 1, 2].map(() => new pg.Client({ connectionString: databaseUrl(state, "primary") }))
  await Promise.all(writers.map((client) => client.connect()))
})

afterAll(async () => {
  replay("resume")
  await Promise.all(writers.map((client) => client.end()))
  clusterSql(
    state,
    "primary",
    `UPDATE songs s SET published_at = v.published_at, deleted_at = v.deleted_at FROM ${VISIBILITY} v
       WHERE v.kind = 'song' AND v.id = s.id
         AND (s.published_at IS DISTINCT FROM v.published_at OR s.deleted_at IS DISTINCT FROM v.deleted_at);
     UPDATE albums a SET published_at = v.published_at FROM ${VISIBILITY} v
       WHERE v.kind = 'album' AND v.id = a.id AND a.published_at IS DISTINCT FROM v.published_at;
     UPDATE members m SET is_banned = v.banned FROM ${VISIBILITY} v
       WHERE v.kind = 'member' AND v.id = m.id AND m.is_banned IS DISTINCT FROM v.banned;
     DROP TABLE ${VISIBILITY}`
  )
  await caughtUp(state)
}, 30_000)

interface Entry {
  readonly type: string
  readonly id: number | string
  readonly change: "upsert" | "remove"
}

let nonce = 0
/** One page; a fresh query string each time so that the front cache never answers a poll. */
const readPage = async (base: string, since: string | undefined) => {
  const query = new URLSearchParams({ limit: "1000", poll: String(nonce++) })
  if (since !== undefined) query.set("since", since)
  const answer = await get(base, `/v1/changes?${query}`)
  expect({ status: answer.status, body: answer.status === 200 ? "" : answer.body }).toEqual({ status: 200, body: "" })
  const page = JSON.parse(answer.body) as { data: ReadonlyArray<Entry>; meta: { next_cursor: string } }
  return page
}

class Mirror {
  readonly rows = new Set<string>()
  cursor: string | undefined = undefined

  async poll(base = proxy) {
    const page = await readPage(base, this.cursor)
    for (const entry of page.data) {
      const key = `${entry.type}/${entry.id}`
      if (entry.change === "upsert") this.rows.add(key)
      else this.rows.delete(key)
    }
    const moved = page.meta.next_cursor !== this.cursor
    this.cursor = page.meta.next_cursor
    return moved
  }

  /** Polls until every replica has answered with the cursor unchanged. */
  async catchUp() {
    for (let quiet = 0, round = 0; quiet < state.replicas.length * 2; round++) {
      if (round > 2_000) throw new Error("the feed never caught up")
      quiet = (await this.poll()) ? 0 : quiet + 1
    }
  }
}

const listIds = async (base: string, path: string, key: (item: any) => string | number) => {
  const ids: Array<string> = []
  for (let cursor = ""; ;) {
    const answer = await get(base, `${path}${path.includes("?") ? "&" : "?"}limit=80${cursor ? `&cursor=${cursor}` : ""}`)
    expect(answer.status).toBe(200)
    const page = JSON.parse(answer.body)
    for (const item of page.data) ids.push(String(key(item)))
    cursor = page.meta.next_cursor
    if (cursor === "") return ids
  }
}

/** The public catalogue as a replica on a caught-up standby shows it. */
const publicCatalogue = async (base: string) => {
  const lists: Array<[string, string, (item: any) => string | number]> = [
    ["songs", "/v1/songs", (s) => s.id],
    ["albums", "/v1/albums", (a) => a.id],
    ["curated_lists", "/v1/curated-lists", (l) => l.id],
    ["artists", "/v1/artists", (a) => a.id],
    ["labels", "/v1/labels", (l) => l.id],
    ["users", "/v1/users", (u) => u.username]
  ]
  const rows: Array<string> = []
  for (const [type, path, key] of lists) rows.push(...(await listIds(base, path, key)).map((id) => `${type}/${id}`))
  const genres = JSON.parse((await get(base, "/v1/genres")).body).data as Array<{ id: number }>
  rows.push(...genres.map((genre) => `genres/${genre.id}`))
  return rows.sort()
}

const standbysCaughtUp = (names?: ReadonlyArray<"standby1" | "standby2">) => caughtUp(state, names)

/** Waits past every schedule due within the next seconds, so the mirror and the catalogue are read on one side of them. */
const settleSchedules = async () => {
  const wait = clusterSql(
    state,
    "primary",
    `SELECT coalesce((extract(epoch FROM max(p) - clock_timestamp()) * 1000)::int, 0) FROM (
       SELECT published_at AS p FROM songs WHERE published_at > clock_timestamp() AND published_at < clock_timestamp() + interval '10 seconds'
       UNION ALL SELECT published_at FROM albums WHERE published_at > clock_timestamp() AND published_at < clock_timestamp() + interval '10 seconds') x`
  ).trim()
  if (Number(wait) > 0) await Bun.sleep(Number(wait) + 200)
}

const expectMirrorEqualsCatalogue = async (mirror: Mirror) => {
  replay("resume")
  let expected: Array<string> = []
  for (let attempt = 0; attempt < 10; attempt++) {
    await settleSchedules()
    await standbysCaughtUp()
    await mirror.catchUp()
    expected = await publicCatalogue(replicaUrl(fresh))
    if (JSON.stringify([...mirror.rows].sort()) === JSON.stringify(expected)) return
    await Bun.sleep(300)
  }
  expect([...mirror.rows].sort()).toEqual(expected)
}

/** A small deterministic generator: the same run every time. */
const random = (() => {
  let seed = 20261128
  return (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
})()
const pick = <A,>(items: ReadonlyArray<A>) => items[random(items.length)]!

const SONGS = [1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 100, 101, 102]
const randomEdit = (): string => {
  const song = pick(SONGS)
  switch (random(10)) {
    case 0:
      return `UPDATE songs SET published_at = now() - interval '1 minute', deleted_at = NULL WHERE id = ${song}`
    case 1:
      return `UPDATE songs SET published_at = NULL WHERE id = ${song}`
    case 2:
      return `UPDATE songs SET deleted_at = now() WHERE id = ${song}`
    case 3:
      return `UPDATE songs SET title = left(title, 40) || '~' WHERE id = ${song}`
    case 4:
      return `UPDATE songs SET published_at = clock_timestamp() + interval '${200 + random(1500)} milliseconds', deleted_at = NULL WHERE id = ${song}`
    case 5:
      return `INSERT INTO credits (song_id, position, artist_id, role_id)
              SELECT ${song}, coalesce(max(position), 0) + 1, ${1 + random(11)}, 1 FROM credits WHERE song_id = ${song}`
    case 6:
      return `DELETE FROM credits WHERE song_id = ${song} AND artist_id = ${1 + random(11)}`
    case 7:
      return `UPDATE albums SET published_at = ${random(2) === 0 ? "NULL" : "clock_timestamp() + interval '700 milliseconds'"} WHERE id = ${1 + random(4)}`
    case 8:
      return `UPDATE members SET is_banned = ${random(2) === 0} WHERE id = ${pick([1, 2, 5, 6, 100, 300])}`
    default:
      return `UPDATE songs SET title = left(title, 40) || '.' WHERE id = ${song}`
  }
}

/** Replay on the second standby paused and resumed at random until `until` settles. */
const lagSecondStandby = async (until: Promise<unknown>) => {
  let running = true
  void until.finally(() => (running = false))
  while (running) {
    replay("pause")
    await Bun.sleep(300 + random(1200))
    replay("resume")
    await Bun.sleep(100 + random(400))
  }
  replay("resume")
}

describe("the change feed through the front cache", () => {
  test("a caught-up mirror polling one address through nginx sees a new change within 5 s", async () => {
    replay("resume")
    await standbysCaughtUp()
    const mirror = new Mirror()
    await mirror.catchUp()
    const path = `/v1/changes?limit=1000&since=${mirror.cursor}`
    const first = await get(proxy, path)
    expect(first.headers["cache-control"]).toBe("public, max-age=2, stale-if-error=86400")
    // the poll is stored: a mirror polling its cursor is answered by nginx
    expect((await get(proxy, path)).headers["x-proxy-cache"]).toBe("HIT")
    await writers[0]!.query(`UPDATE songs SET title = title || '.' WHERE id = 8`)
    const written = Date.now()
    let seen: number | undefined
    while (seen === undefined && Date.now() - written < 15_000) {
      const page = JSON.parse((await get(proxy, path)).body) as { data: ReadonlyArray<Entry> }
      if (page.data.some((entry) => entry.type === "songs" && entry.id === 8)) seen = Date.now()
      else await Bun.sleep(100)
    }
    expect(seen === undefined ? "never" : seen - written).toBeLessThan(5_000)
  }, 60_000)
})

describe("the change feed across replicas reading standbys with different lag", () => {
  test("a cursor issued by a fresher replica is answered by a staler one without skipping what the staler one has not seen", async () => {
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    replay("pause")
    const [writer] = writers as [pg.Client]
    await writer.query("UPDATE songs SET published_at = NULL WHERE id = 1")
    await writer.query("UPDATE songs SET published_at = clock_timestamp() + interval '300 milliseconds' WHERE id = 2")
    await Bun.sleep(600)
    await standbysCaughtUp(["standby1"])
    // the fresher replica has seen both edits; follow it to its end
    for (let i = 0; i < 10 && (await mirror.poll(replicaUrl(fresh))); i++);
    expect(mirror.rows.has("songs/1")).toBe(false)
    // the staler one, still behind, answers that cursor (never bad_request) and takes the mirror nowhere wrong
    await mirror.poll(replicaUrl(stale))
    await mirror.poll(replicaUrl(stale))
    replay("resume")
    await expectMirrorEqualsCatalogue(mirror)
  }, 120_000)

  test("a cursor from a replica whose clock runs ahead is answered by the others, the paused standby's included: nothing is read until their clocks pass its horizon, then nothing is skipped", async () => {
    const [writer] = writers as [pg.Client]
    await writer.query("UPDATE songs SET published_at = now() - interval '1 day', deleted_at = NULL WHERE id = 5")
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/5")).toBe(true)
    replay("pause")
    await writer.query("UPDATE songs SET published_at = NULL WHERE id = 5")
    await standbysCaughtUp(["standby1"])
    const secret = clusterSql(state, "primary", CURSOR_SECRET_SQL).trim()
    const ahead = withHorizonAhead(mirror.cursor!, secret, 1000)
    mirror.cursor = ahead
    // never bad_request: the cursor comes back as given, from the caught-up standby and the paused one
    for (const replica of [fresh, stale, fresh, stale]) expect(await mirror.poll(replicaUrl(replica))).toBe(false)
    await Bun.sleep(1100)
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/5")).toBe(false)
  }, 120_000)

  test("a schedule committed after its own due time, while another fell due and was read, is not skipped", async () => {
    const [writer, late] = writers as [pg.Client, pg.Client]
    // song 12 has never been public: only its schedule can announce it (and artist 10 with it)
    await writer.query("UPDATE songs SET published_at = now() + interval '7 days', deleted_at = NULL WHERE id = 12")
    await writer.query("UPDATE songs SET published_at = now() - interval '1 day', deleted_at = NULL WHERE id = 101")
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/12")).toBe(false)
    await writer.query("UPDATE songs SET published_at = clock_timestamp() + interval '400 milliseconds' WHERE id = 101")
    await late.query("BEGIN")
    await late.query("UPDATE songs SET published_at = clock_timestamp() + interval '100 milliseconds' WHERE id = 12")
    // readers pass both due times (and read song 101's) while the schedule of song 12 is uncommitted
    for (let i = 0; i < 8; i++) {
      await Bun.sleep(150)
      await mirror.poll(replicaUrl(fresh))
      await mirror.poll(replicaUrl(stale))
    }
    await late.query("COMMIT")
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/12")).toBe(true)
  }, 120_000)

  test("a withdrawal still open on the primary when its row falls due: the upsert a standby served is followed by a remove", async () => {
    const [writer, withdrawal] = writers as [pg.Client, pg.Client]
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    // a song no one has seen, scheduled a moment ahead, with a credit (artist 4 is public)
    await writer.query("BEGIN")
    await writer.query("INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (960, 'Almost', 'almost', '2020-01-01', clock_timestamp() + interval '1 second')")
    await writer.query("INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (960, 1, 4, 1)")
    await writer.query("COMMIT")
    // withdrawn before its time, in a transaction still open when the time comes
    await withdrawal.query("BEGIN")
    await withdrawal.query("UPDATE songs SET published_at = NULL WHERE id = 960")
    // a standby cannot see the primary's running writers: past the due time its due stream serves the song
    const started = Date.now()
    while (!mirror.rows.has("songs/960") && Date.now() - started < 10_000) {
      await Bun.sleep(100)
      await mirror.poll(replicaUrl(fresh))
    }
    expect(mirror.rows.has("songs/960")).toBe(true)
    await withdrawal.query("COMMIT")
    // the commit, past the due time it withdrew, touches the song: served as remove
    await expectMirrorEqualsCatalogue(mirror)
    expect(mirror.rows.has("songs/960")).toBe(false)
  }, 120_000)

  test("a mirror following the proxy while the primary is edited equals the public catalogue and never skips", async () => {
    const mirror = new Mirror()
    await expectMirrorEqualsCatalogue(mirror)
    const [first, second, third] = writers as [pg.Client, pg.Client, pg.Client]
    let editing = true
    const edits = (async () => {
      for (let step = 0; step < 60; step++) {
        const kind = step === 0 ? 1 : random(6)
        if (kind === 0) {
          // interleaved: the first takes the smaller xid, the second commits first
          await first.query("BEGIN")
          await first.query(randomEdit())
          await second.query("BEGIN")
          await second.query(`UPDATE songs SET title = left(title, 40) || '+' WHERE id = ${103 + random(6)}`)
          await second.query("COMMIT")
          await Bun.sleep(random(800))
          await first.query("COMMIT")
        } else if (kind === 1) {
          // a schedule that falls due while its transaction is still open, committed after
          await third.query("BEGIN")
          // (first a song no one has seen: only its schedule can announce it and its new artist)
          const song = step === 0 ? 12 : pick(SONGS)
          await third.query(`UPDATE songs SET published_at = clock_timestamp() + interval '200 milliseconds', deleted_at = NULL WHERE id = ${song}`)
          // other writers commit meanwhile, so that readers move on past its due time
          for (let other = 0; other < 4; other++) {
            await Bun.sleep(200 + random(200))
            await first.query(`UPDATE songs SET title = left(title, 40) || '*' WHERE id = ${103 + random(6)}`)
          }
          await third.query("COMMIT")
        } else {
          await first.query(randomEdit())
        }
        await Bun.sleep(random(250))
      }
      editing = false
    })()
    const lag = lagSecondStandby(edits)
    while (editing) {
      await mirror.poll()
      await Bun.sleep(random(120))
    }
    await Promise.all([edits, lag])
    await expectMirrorEqualsCatalogue(mirror)
  }, 300_000)
})
