import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { collectsFewMatches, MATCH_PROBE_IN_WALKED_ENTRIES } from "../src/Artists/Repo.js"
import { request } from "./support/http.js"
import { walkByCursor } from "./support/pages.js"
import { clockPassesScheduledSong, expectEveryStepCounted } from "./support/keptCountSteps.js"
import { artistNameGramsUnlike, memberNameGramsUnlike } from "./support/keptRows.js"
import { startServer, type TestServer } from "./support/server.js"
import { slow } from "./support/slow.js"

/**
 * /v1/artists?q= and /v1/users?q= by the kept facts-0050: a query's page walked along
 * a kept order, or, when its matches are few, collected (artists: the kept gram's pairs, the kept
 * names' or the artists' trigram indexes; users: read by key through the steered page's key sets).
 * 306 more artists and 304 more members make every way happen ("a" walks, "zy" collects), with
 * matches of every kind among the rare ones: a settled artist, an honorific's full name, an
 * album-only artist, a hidden one, one whose only song is scheduled; members by username only,
 * banned, without a handle. Each answer must equal the public rows counted.
 */
const catalogue = [
  `INSERT INTO artists (id, name, slug) SELECT 7000 + n, 'Rama ' || n, 'rama-' || n FROM generate_series(1, 300) AS n`,
  `INSERT INTO artists (id, name, slug, prefix_title) VALUES (7401, 'Zyqo', 'zyqo', NULL), (7402, 'Anis', 'anis', 'Dato Zy'),
     (7403, 'Zynthia', 'zynthia', NULL), (7404, 'Zyra', 'zyra', NULL), (7405, 'Zyla', 'zyla', NULL), (7406, 'Bossa', 'bossa', NULL)`,
  // one to three public songs each (song counts to sort by); 7404's song a draft, 7405's scheduled
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at)
   SELECT 300000 + n, 'Lagu ' || n, 'lagu-' || n, date '2001-01-01' + n, 'FULL', now() - interval '1 day' FROM generate_series(1, 604) AS n`,
  `INSERT INTO songs (id, title, slug, released_at, date_type, published_at) VALUES
     (300701, 'Draf', 'draf', date '2002-02-02', 'FULL', NULL),
     (300702, 'Nanti', 'nanti', date '2002-02-02', 'FULL', now() + interval '3 days')`,
  `INSERT INTO credits (song_id, position, artist_id, role_id)
   SELECT 300000 + n, 1, 7000 + (n - 1) % 300 + 1, 1 FROM generate_series(1, 600) AS n WHERE n <= 300 OR n % 3 = 0`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) VALUES
     (300601, 1, 7401, 1), (300602, 1, 7402, 1), (300603, 1, 7402, 1), (300604, 1, 7406, 1),
     (300701, 1, 7404, 1), (300702, 1, 7405, 1)`,
  `INSERT INTO albums (id, title, slug, album_type, released_at, published_at) VALUES (7403, 'Sintesis', 'sintesis', 'album', date '2003-03-03', now() - interval '1 day')`,
  `INSERT INTO album_artists (album_id, position, artist_id) VALUES (7403, 1, 7403)`,
  // members: 300 public ones, and rare names of every kind: by name, by username only, banned, no handle
  `INSERT INTO members (id, username, name, kind, joined_at)
   SELECT 7000 + n, 'ahli' || n, 'Ahli Rama ' || n, CASE WHEN n % 3 = 0 THEN 'artist' ELSE 'fan' END, timestamptz '2020-01-01' + n * interval '1 day'
   FROM generate_series(1, 300) AS n`,
  `INSERT INTO members (id, username, name, kind, joined_at, is_banned) VALUES
     (7401, 'zyqo', 'Zyqo', 'fan', '2021-01-01', false), (7402, 'dzy', 'Dato Anis', 'artist', '2021-01-02', false),
     (7403, 'zyban', 'Zyra', 'fan', '2021-01-03', true), (7404, NULL, 'Zylo', 'fan', '2021-01-04', false)`
]

/**
 * Dense ("a", "ra"), rare ("zy", "qo", "ss" spelled "ß"), none ("x"), one that is none of the new
 * artists' ("mi"); longer ones, dense ("ama"), rare ("zyq", an honorific's "dato zy") and one
 * whose trigrams say little ("a 😀": bounds it by its rarest two characters)
 */
const QUERIES = ["a", "ra", "zy", "qo", "ß", "x", "mi", "ama", "zyq", "dato zy", "a 😀"]

let server: TestServer
beforeAll(async () => {
  server = await startServer({ statements: catalogue })
}, 60_000)
afterAll(() => server.close())

/** The rows of `rowsUnlike` queries summed (0: every kept table as written from scratch). */
const unlikeRows = async (queries: ReadonlyArray<string>) =>
  (await Promise.all(queries.map((text) => server.sql<{ n: number }>(text)))).reduce((sum, [row]) => sum + row!.n, 0)

type Lists = Record<string, { total: number; byName: ReadonlyArray<number>; bySongs: ReadonlyArray<[number, number]>; grams: number }>

/** Each query's total and both orders: every page by offset (7 a page) and through next_cursor, which must agree. */
const served = async (): Promise<Lists> => {
  const lists: Lists = {}
  // the kept grams against the same grams from the kept names (0: the same rows), once for every query's entry
  const grams = await unlikeRows(artistNameGramsUnlike)
  for (const q of QUERIES) {
    const path = (sort: string) => `/v1/artists?q=${encodeURIComponent(q)}&sort=${sort}`
    const first = await request(server.baseUrl, `${path("name")}&limit=1`)
    expect(first.status).toBe(200)
    const total = (first.body as { meta: { total: number } }).meta.total
    const byOffset = async (sort: string) => {
      const rows: Array<{ id: number; song_count: number }> = []
      for (let offset = 0; offset < total + 7; offset += 7) {
        const reply = await request(server.baseUrl, `${path(sort)}&offset=${offset}&limit=7`)
        expect(reply.status).toBe(200)
        expect((reply.body as { meta: { total: number } }).meta.total).toBe(total)
        rows.push(...(reply.body as { data: Array<{ id: number; song_count: number }> }).data)
      }
      expect(((await walkByCursor(server.baseUrl, path(sort), 7)) as Array<{ id: number }>).map((a) => a.id)).toEqual(rows.map((a) => a.id))
      return rows
    }
    lists[q] = {
      total,
      byName: (await byOffset("name")).map((a) => a.id),
      bySongs: (await byOffset("songs")).map((a): [number, number] => [a.id, a.song_count]),
      grams
    }
  }
  return lists
}

/** The same counted over public_artists: folded names containing the folded query (docs/search.md). */
const counted = async (): Promise<Lists> => {
  const lists: Lists = {}
  for (const q of QUERIES) {
    const rows = await server.sql<{ id: number; songs: number }>(`
      SELECT a.id, (SELECT count(DISTINCT c.song_id) FROM credits c JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = a.id)::int AS songs
      FROM public_artists a, fold_name($1) f
      WHERE f <> '' AND (strpos(a.search_name, f) > 0 OR strpos(a.search_full_name, f) > 0)
      ORDER BY lower(a.name), a.id`, [q])
    const bySongs = [...rows].sort((x, y) => y.songs - x.songs || x.id - y.id)
    lists[q] = { total: rows.length, byName: rows.map((a) => a.id), bySongs: bySongs.map((a): [number, number] => [a.id, a.songs]), grams: 0 }
  }
  return lists
}

/** Each users query's members' handles in every sort and order, by offset (25 a page) and through next_cursor, which must agree. */
const USER_ORDERS = ["sort=contributions", "sort=joined&order=asc", "sort=name", "sort=name&order=desc", "sort=name&type=fans"]

/** Dense ("a"), rare ("zy", "qo"), none ("x"); and longer ones, whose matches are read by key (few: "zyq") or not */
const USER_QUERIES = ["a", "zy", "qo", "x", "zyq", "rama 2"]

const servedUsers = async (): Promise<Record<string, ReadonlyArray<string>>> => {
  const lists: Record<string, ReadonlyArray<string>> = {}
  const grams = await unlikeRows(memberNameGramsUnlike)
  for (const q of USER_QUERIES) {
    for (const order of USER_ORDERS) {
      const path = `/v1/users?q=${encodeURIComponent(q)}&${order}`
      const first = await request(server.baseUrl, `${path}&limit=1`)
      expect(first.status).toBe(200)
      const total = (first.body as { meta: { total: number } }).meta.total
      const handles: Array<string> = []
      for (let offset = 0; offset < total + 25; offset += 25) {
        const reply = await request(server.baseUrl, `${path}&offset=${offset}&limit=25`)
        expect((reply.body as { meta: { total: number } }).meta.total).toBe(total)
        handles.push(...(reply.body as { data: Array<{ username: string }> }).data.map((m) => m.username))
      }
      expect(((await walkByCursor(server.baseUrl, path, 25)) as Array<{ username: string }>).map((m) => m.username)).toEqual(handles)
      lists[`${q} ${order}`] = handles
    }
    lists[`${q} grams`] = [String(grams)]
  }
  return lists
}

/** The same over public_members: folded name or username containing the folded query, in each order. */
const countedUsers = async (): Promise<Record<string, ReadonlyArray<string>>> => {
  const lists: Record<string, ReadonlyArray<string>> = {}
  const orderBy: Record<string, string> = {
    "sort=contributions": "n DESC, lower(m.username) DESC",
    "sort=joined&order=asc": "m.joined_at, lower(m.username)",
    "sort=name": "lower(m.name), lower(m.username)",
    "sort=name&order=desc": "lower(m.name) DESC, lower(m.username) DESC",
    "sort=name&type=fans": "lower(m.name), lower(m.username)"
  }
  for (const q of USER_QUERIES) {
    for (const order of USER_ORDERS) {
      const rows = await server.sql<{ username: string }>(`
        SELECT m.username, (SELECT count(*) FROM contributions c JOIN public_songs s ON s.id = c.song_id WHERE c.member_id = m.id) AS n
        FROM public_members m, fold_name($1) f
        WHERE f <> '' AND (strpos(m.search_name, f) > 0 OR strpos(m.search_username, f) > 0)
          AND (${order.includes("type=fans") ? "m.kind = 'fan'" : "TRUE"})
        ORDER BY ${orderBy[order]}`, [q])
      lists[`${q} ${order}`] = rows.map((m) => m.username)
    }
    lists[`${q} grams`] = ["0"]
  }
  return lists
}

describe("users queries (kept grams; a longer q's matches by their handles)", () => {
  slow(test, "every kind of change, each followed by every query compared with a count of the rows", 10)("a query's members, read by key or walked, equal counting the public members, after every kind of change", async () => {
    const before = await servedUsers()
    expect(before).toEqual(await countedUsers())
    // the rare ones: by name, by username only (dzy); not banned (zyban), not without a handle
    expect([...before["zy sort=name"]!].sort()).toEqual(["dzy", "zyqo"])
    expect(before["a sort=name"]!.length).toBeGreaterThan(300)
    const steps: Array<[string, string]> = [
      // renamed: loses "zy" and "qo"
      ["UPDATE members SET name = 'Oqyz', username = 'oqyz' WHERE id = 7401", "UPDATE members SET name = 'Zyqo', username = 'zyqo' WHERE id = 7401"],
      // banned, and unbanned
      ["UPDATE members SET is_banned = true WHERE id = 7402", "UPDATE members SET is_banned = false WHERE id = 7402"],
      ["UPDATE members SET is_banned = false WHERE id = 7403", "UPDATE members SET is_banned = true WHERE id = 7403"],
      // a handle given, and a member gone
      ["UPDATE members SET username = 'zylo' WHERE id = 7404", "UPDATE members SET username = NULL WHERE id = 7404"],
      ["DELETE FROM members WHERE id = 7001", `INSERT INTO members (id, username, name, kind, joined_at)
        VALUES (7001, 'ahli1', 'Ahli Rama 1', 'fan', timestamptz '2020-01-01' + interval '1 day')`]
    ]
    await expectEveryStepCounted(
      (statement) => server.sql(statement),
      steps,
      async () => ({ served: await servedUsers(), counted: await countedUsers() }),
      before
    )
  })
})

describe("artist queries (kept grams, kept names' trigrams)", () => {
  slow(test, "every kind of change, each followed by every query compared with a count of the rows", 10)("both ways of finding a query's page equal counting the public artists, after every kind of change", async () => {
    // the catalogue makes both ways happen: a test of one way only could not fail for the other
    const facts = async (q: string) =>
      (await server.sql<{ kept_matches: number; kept_artists: number }>("SELECT * FROM artist_name_query($1, $2)", [q, MATCH_PROBE_IN_WALKED_ENTRIES]))[0]!
    // (a gram's kept matches are exact; a longer query's are counted only as far as the choice needs: a thirtieth of the kept artists)
    for (const [q, kept, collected] of [["zy", 2, true], ["zyq", 1, true], ["a 😀", 0, true], ["a", 310, false], ["ama", 11, false]] as const) {
      const { kept_matches, kept_artists } = await facts(q)
      expect({ q, kept: kept_matches }).toEqual({ q, kept })
      expect({ q, collected: collectsFewMatches(kept_matches, kept_artists, { limit: 7, offset: collected ? 0 : 140 }) })
        .toEqual({ q, collected })
    }

    const before = await served()
    expect(before).toEqual(await counted())
    expect(before["a"]!.total).toBeGreaterThan(300)
    // Zyqo, Dato Zy Anis (the full name), Zynthia (an album only); not Zyra (a draft), not Zyla (scheduled)
    expect([...before["zy"]!.byName].sort()).toEqual([7401, 7402, 7403])
    expect(before["ß"]!.byName).toEqual([7406])

    const [scheduled] = await server.sql<{ published_at: string }>("SELECT published_at::text FROM songs WHERE id = 300702")
    const steps: Array<[string, string]> = [
      // renamed: loses "zy" and "qo", gains "yz" and "oq"
      ["UPDATE artists SET name = 'Oqyz' WHERE id = 7401", "UPDATE artists SET name = 'Zyqo' WHERE id = 7401"],
      // the honorific gone: 7402 no longer matches "zy" but still "a"
      ["UPDATE artists SET prefix_title = NULL WHERE id = 7402", "UPDATE artists SET prefix_title = 'Dato Zy' WHERE id = 7402"],
      // songs unpublished: 7402 leaves the kept names (and the list); a dense artist too
      ["UPDATE songs SET published_at = NULL WHERE id IN (300602, 300603, 300001)",
        "UPDATE songs SET published_at = now() - interval '1 day' WHERE id IN (300602, 300603, 300001)"],
      // a draft published: 7404 joins
      ["UPDATE songs SET published_at = now() - interval '1 hour' WHERE id = 300701", "UPDATE songs SET published_at = NULL WHERE id = 300701"],
      // the clock passes 7405's scheduled song: visible through a due song, not yet kept
      clockPassesScheduledSong(300702, scheduled!.published_at),
      // the album-only artist's album hidden
      ["UPDATE albums SET published_at = NULL WHERE id = 7403", "UPDATE albums SET published_at = now() - interval '1 day' WHERE id = 7403"]
    ]
    await expectEveryStepCounted(
      async (statement) => {
        for (const part of statement.split(";")) if (part.trim() !== "") await server.sql(part)
      },
      steps,
      async () => ({ served: await served(), counted: await counted() }),
      before
    )
  })
})
