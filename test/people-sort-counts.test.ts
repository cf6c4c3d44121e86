import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { walkByCursor } from "./support/pages.js"
import { startServer, type TestServer } from "./support/server.js"
import { clockPassesScheduledSong, expectEveryStepCounted, songsMovedEveryWay } from "./support/keptCountSteps.js"
import { publicFromOf, rowsUnlike } from "./support/keptRows.js"
import { slow } from "./support/slow.js"

// Its own server and database: the steps below change rows that other test files assert on.
let server: TestServer
beforeAll(async () => {
  server = await startServer()
}, 60_000)
afterAll(async () => {
  await server.stop()
  await server.database.drop()
}, 30_000)

interface Listed {
  /** /v1/users?sort=contributions, every page, as [username, contribution_count] */
  readonly users: ReadonlyArray<[string, number]>
  /** the same, order=asc, first page */
  readonly usersAscending: ReadonlyArray<[string, number]>
  readonly userTotal: number
  /** /v1/users?type=... totals, artists, fans, groups */
  readonly userKindTotals: ReadonlyArray<number>
  /** /v1/users in contribution order with each of FILTERS, every page, as [username, contribution_count] */
  readonly usersFiltered: ReadonlyArray<ReadonlyArray<[string, number]>>
  /** /v1/labels (by songs), as [id, song_count, album_count], and each label's songs total */
  readonly labels: ReadonlyArray<[number, number, number]>
  readonly labelSongTotals: ReadonlyArray<number>
  /** /v1/genres as [slug, song_count], and each genre's songs total */
  readonly genres: ReadonlyArray<[string, number]>
  readonly genreSongTotals: ReadonlyArray<number>
  /** the busiest members' contributions, newest first: [username, total, ids of the first and last pages] */
  readonly contributions: ReadonlyArray<[string, number, string]>
  /** rows unlike the contributions and their songs now (0) */
  readonly contributionOrdersUnlike: number
}

/** The members whose contributions are listed: the most contributing (ids 1-3 of the fixture). */
const CONTRIBUTORS = "SELECT id, username FROM public_members WHERE id IN (1, 2, 3, 100) ORDER BY id"
/** The contributions keeps them, and as they are, each set minus the other. */
const CONTRIBUTION_ORDERS_UNLIKE = rowsUnlike(
  "SELECT id, member_id, action_at, song_id, public_from FROM member_contribution_orders",
  `SELECT c.id, c.member_id, c.action_at, c.song_id, ${publicFromOf("s")} FROM contributions c JOIN songs s ON s.id = c.song_id`
)

const body = async (path: string) => {
  const reply = await request(server.baseUrl, path)
  expect(reply.status).toBe(200)
  return reply.body as { meta: { total: number }; data: Array<Record<string, unknown>> }
}

const USER_TYPES = [["artists", "artist"], ["fans", "fan"], ["groups", "group"]] as const

/** Filters of the contribution order as the ranks keep them: one and two letters, a word, a kind, both. */
const FILTERS: ReadonlyArray<{ readonly q?: string; readonly kind?: string }> = [
  { q: "ri" }, { q: "zz" }, { q: "ina" }, { kind: "fan" }, { q: "a", kind: "artist" }
]
const filterQuery = (filter: (typeof FILTERS)[number]) =>
  [filter.q === undefined ? "" : `q=${filter.q}`, filter.kind === undefined ? "" : `type=${USER_TYPES.find(([, k]) => k === filter.kind)![0]}`]
    .filter((part) => part !== "").join("&")

/** The lists as the service serves them (ranks and settled counts). */
const served = async (): Promise<Listed> => {
  const users = (await walkByCursor(server.baseUrl, "/v1/users", 7)) as Array<{ username: string; contribution_count: number }>
  const ascending = await body("/v1/users?order=asc&limit=10")
  const labels = await body("/v1/labels?limit=50")
  const genres = await body("/v1/genres")
  const labelIds = (await server.sql<{ id: number }>("SELECT id FROM labels ORDER BY id")).map((l) => l.id)
  const slugs = (await server.sql<{ slug: string }>("SELECT slug FROM genres ORDER BY id")).map((g) => g.slug)
  return {
    users: users.map((m): [string, number] => [m.username, m.contribution_count]),
    usersAscending: ascending.data.map((m): [string, number] => [m.username as string, m.contribution_count as number]),
    userTotal: (await body("/v1/users?limit=1")).meta.total,
    userKindTotals: await Promise.all(USER_TYPES.map(async ([type]) => (await body(`/v1/users?type=${type}&limit=1`)).meta.total)),
    usersFiltered: await Promise.all(FILTERS.map(async (filter) =>
      ((await walkByCursor(server.baseUrl, `/v1/users?${filterQuery(filter)}`, 4)) as Array<{ username: string; contribution_count: number }>)
        .map((m): [string, number] => [m.username, m.contribution_count]))),
    labels: labels.data.map((l): [number, number, number] => [l.id as number, l.song_count as number, l.album_count as number]),
    labelSongTotals: await Promise.all(labelIds.map(async (id) => (await body(`/v1/labels/${id}/songs?limit=1`)).meta.total)),
    genres: genres.data.map((g): [string, number] => [g.slug as string, g.song_count as number]),
    genreSongTotals: await Promise.all(slugs.map(async (slug) => (await body(`/v1/genres/${slug}/songs?limit=1`)).meta.total)),
    contributions: await Promise.all((await server.sql<{ username: string }>(CONTRIBUTORS)).map(async ({ username }) => {
      const first = await body(`/v1/users/${username}/contributions?limit=3`)
      const total = first.meta.total
      // the last page comes from the far end of the member's range
      const last = await body(`/v1/users/${username}/contributions?limit=3&offset=${Math.max(total - 3, 0)}`)
      const ids = [...first.data, ...last.data].map((c) => c.id).join(",")
      return [username, total, ids] as [string, number, string]
    })),
    contributionOrdersUnlike: (await server.sql<{ n: number }>(CONTRIBUTION_ORDERS_UNLIKE))[0]!.n
  }
}

/** The same lists counted directly over the public views. */
const counted = async (): Promise<Listed> => {
  const members = await server.sql<{ username: string; kind: string; folded: ReadonlyArray<string>; n: number }>(`
    SELECT m.username, m.kind, ARRAY[m.search_name, m.search_username] AS folded, (SELECT count(*) FROM contributions c JOIN public_songs s ON s.id = c.song_id WHERE c.member_id = m.id)::int AS n
    FROM public_members m`)
  const byCount = [...members].sort((x, y) => y.n - x.n || (x.username.toLowerCase() < y.username.toLowerCase() ? 1 : -1))
  const labels = await server.sql<{ id: number; songs: number; albums: number }>(`
    SELECT l.id,
      (SELECT count(*) FROM song_labels x JOIN public_songs s ON s.id = x.song_id WHERE x.label_id = l.id)::int AS songs,
      (SELECT count(*) FROM public_albums a WHERE a.label_id = l.id)::int AS albums
    FROM labels l ORDER BY l.id`)
  const genres = await server.sql<{ slug: string; songs: number }>(`
    SELECT g.slug, (SELECT count(*) FROM song_genres x JOIN public_songs s ON s.id = x.song_id WHERE x.genre_id = g.id)::int AS songs
    FROM genres g ORDER BY g.id`)
  return {
    users: byCount.map((m): [string, number] => [m.username, m.n]),
    usersAscending: [...byCount].reverse().slice(0, 10).map((m): [string, number] => [m.username, m.n]),
    userTotal: members.length,
    userKindTotals: USER_TYPES.map(([, kind]) => members.filter((m) => m.kind === kind).length),
    usersFiltered: FILTERS.map((filter) =>
      byCount.filter((m) => (filter.kind === undefined || m.kind === filter.kind) && (filter.q === undefined || m.folded.some((f) => f.includes(filter.q!))))
        .map((m): [string, number] => [m.username, m.n])),
    labels: [...labels].sort((x, y) => y.songs - x.songs || y.id - x.id).map((l): [number, number, number] => [l.id, l.songs, l.albums]),
    labelSongTotals: labels.map((l) => l.songs),
    genres: [...genres].sort((x, y) => (x.slug < y.slug ? -1 : 1)).map((g): [string, number] => [g.slug, g.songs]),
    genreSongTotals: genres.map((g) => g.songs),
    contributions: await Promise.all((await server.sql<{ id: number; username: string }>(CONTRIBUTORS)).map(async ({ id, username }) => {
      const ids = (await server.sql<{ id: number }>(`SELECT c.id FROM contributions c JOIN public_songs s ON s.id = c.song_id
        WHERE c.member_id = ${id} ORDER BY c.action_at DESC, c.id DESC`)).map((c) => c.id)
      const shown = [...ids.slice(0, 3), ...ids.slice(Math.max(ids.length - 3, 0))].join(",")
      return [username, ids.length, shown] as [string, number, string]
    })),
    contributionOrdersUnlike: 0
  }
}

describe("kept sort counts (members' ranks, labels' and genres' settled songs)", () => {
  slow(test, "every kind of change, each followed by the lists compared with a count of the rows", 10)("the users, labels and genres lists equal counting the public rows, after every kind of change", async () => {
    const before = await served()
    expect(before).toEqual(await countedInServedOrder())
    // the fixture's numbers: a test that could not fail would pass on empty lists
    expect(before.users.length).toBeGreaterThan(20)
    // each filter but "zz" (a renamed member's, below) matches some members and not all: walked past the misses
    expect(before.usersFiltered.filter((rows) => rows.length > 0 && rows.length < before.users.length).length).toBe(FILTERS.length - 1)
    expect(before.users[0]![1]).toBeGreaterThan(1)
    expect(before.labels[0]![1]).toBeGreaterThan(1)
    expect(before.contributions.some(([, total]) => total > 6)).toBe(true)

    const [future] = await server.sql<{ published_at: string }>("SELECT published_at::text FROM songs WHERE id = 12")
    const [member] = await server.sql<{ username: string }>("SELECT username FROM members WHERE id = 2")
    const fixture = await server.sql<{ kind: string; is_banned: boolean }>("SELECT kind, is_banned FROM members WHERE id IN (3, 4, 5) ORDER BY id")
    const kinds = fixture.map((m) => m.kind)
    // the fixture has members of every kind: a per-kind total that could not move would pass on zeros
    expect(before.userKindTotals.every((n) => n > 0)).toBe(true)
    const steps: Array<[string, string]> = [
      ["UPDATE songs SET deleted_at = now() WHERE id = 4", "UPDATE songs SET deleted_at = NULL WHERE id = 4"],
      ["UPDATE songs SET published_at = NULL WHERE id IN (1, 2)",
        "UPDATE songs SET published_at = CASE id WHEN 1 THEN timestamptz '2020-01-01T00:00:00Z' ELSE timestamptz '2020-01-02T00:00:00Z' END WHERE id IN (1, 2)"],
      // the scheduled song is published now, and the clock passing it with no write since (a "due" song)
      ["UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12",
        `UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12`],
      clockPassesScheduledSong(12, future!.published_at),
      songsMovedEveryWay,
      // a public song becomes scheduled, and back; a hidden one is published
      ["UPDATE songs SET published_at = now() + interval '3 days' WHERE id = 7",
        "UPDATE songs SET published_at = '2020-01-07T00:00:00Z' WHERE id = 7"],
      ["UPDATE songs SET published_at = now() - interval '1 day' WHERE id = 10", "UPDATE songs SET published_at = NULL WHERE id = 10"],
      // links: added, moved, removed; onto the scheduled song
      ["INSERT INTO song_genres (song_id, genre_id) VALUES (2, 1), (12, 2)",
        "DELETE FROM song_genres WHERE (song_id, genre_id) IN ((2, 1), (12, 2))"],
      ["UPDATE song_labels SET label_id = 3 WHERE song_id = 2", "UPDATE song_labels SET label_id = 2 WHERE song_id = 2"],
      ["DELETE FROM song_labels WHERE song_id IN (1, 3, 12)", "INSERT INTO song_labels (song_id, label_id) VALUES (1, 1), (3, 1), (12, 2)"],
      ["DELETE FROM song_genres WHERE song_id IN (1, 3, 12)",
        "INSERT INTO song_genres (song_id, genre_id) VALUES (1, 1), (1, 4), (3, 1), (12, 1)"],
      // albums: unpublished, scheduled, moved to another label
      ["UPDATE albums SET published_at = NULL WHERE id = 2", "UPDATE albums SET published_at = '2020-01-01T00:00:00Z' WHERE id = 2"],
      ["UPDATE albums SET published_at = now() + interval '1 day' WHERE id = 1", "UPDATE albums SET published_at = '2020-01-01T00:00:00Z' WHERE id = 1"],
      ["UPDATE albums SET label_id = 3 WHERE id = 1", "UPDATE albums SET label_id = 1 WHERE id = 1"],
      // members: banned, losing the handle, renamed, a new one, one with contributions deleted
      ["UPDATE members SET is_banned = true WHERE id = 1", "UPDATE members SET is_banned = false WHERE id = 1"],
      ["UPDATE members SET username = NULL WHERE id = 2", `UPDATE members SET username = '${member!.username}' WHERE id = 2`],
      ["UPDATE members SET username = 'zz-renamed' WHERE id = 2", `UPDATE members SET username = '${member!.username}' WHERE id = 2`],
      ["INSERT INTO members (id, username, name) VALUES (900, 'baru', 'Baru')", "DELETE FROM members WHERE id = 900"],
      // a member changing kind (per-kind totals), and a banned one doing so (the fixture's canary may be banned already)
      [`UPDATE members SET kind = CASE kind WHEN 'fan' THEN 'group' ELSE 'fan' END WHERE id IN (3, 4)`,
        `UPDATE members SET kind = '${kinds[0]}' WHERE id = 3; UPDATE members SET kind = '${kinds[1]}' WHERE id = 4`],
      [`UPDATE members SET is_banned = true WHERE id = 5; UPDATE members SET kind = 'artist' WHERE id = 5`,
        `UPDATE members SET kind = '${kinds[2]}' WHERE id = 5; UPDATE members SET is_banned = ${fixture[2]!.is_banned} WHERE id = 5`],
      // contributions: onto the scheduled song, a new one, a member's all deleted
      ["UPDATE contributions SET song_id = 12 WHERE id IN (6, 300)",
        "UPDATE contributions SET song_id = CASE id WHEN 6 THEN 2 ELSE 3 END WHERE id IN (6, 300)"],
      ["INSERT INTO contributions (id, member_id, song_id, action) VALUES (900, 100, 2, 'edit')", "DELETE FROM contributions WHERE id = 900"],
      [`INSERT INTO members (id, username, name) VALUES (900, 'Baru', 'Baru');
        INSERT INTO contributions (id, member_id, song_id, action) VALUES (901, 900, 2, 'edit'), (902, 900, 3, 'edit')`,
        "DELETE FROM contributions WHERE member_id = 900; DELETE FROM members WHERE id = 900"],
      [`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (900, 'Baru', 'baru', current_date, now());
        INSERT INTO song_labels (song_id, label_id) VALUES (900, 1);
        INSERT INTO song_genres (song_id, genre_id) VALUES (900, 1), (900, 2)`,
        "DELETE FROM song_labels WHERE song_id = 900; DELETE FROM song_genres WHERE song_id = 900; DELETE FROM songs WHERE id = 900"]
    ]
    await expectEveryStepCounted((s) => server.sql(s), steps,
      async () => ({ served: await served(), counted: await countedInServedOrder() }), before)
  })

  test("a recount from scratch gives the ranks and settled counts the triggers kept", async () => {
    const tables = ["member_contribution_ranks ORDER BY member_id", "public_member_kind_counts WHERE members <> 0 ORDER BY kind", "label_song_counts WHERE settled_songs <> 0 ORDER BY label_id",
      "genre_song_counts WHERE settled_songs <> 0 ORDER BY genre_id"]
    const kept = await Promise.all(tables.map((t) => server.sql(`SELECT * FROM ${t}`)))
    expect((kept[0] as Array<unknown>).length).toBeGreaterThan(20)
    await server.sql("SELECT recount_member_contribution_ranks(); SELECT recount_link_song_counts(); SELECT recount_public_member_kinds()")
    expect(await Promise.all(tables.map((t) => server.sql(`SELECT * FROM ${t}`)))).toEqual(kept)
    // the ranks are exactly the public members, by their lower-cased username
    expect(await server.sql(`SELECT m.id FROM public_members m
      FULL JOIN member_contribution_ranks r ON r.member_id = m.id AND r.handle = lower(m.username)
      WHERE m.id IS NULL OR r.member_id IS NULL`)).toEqual([])
  })
})

/** counted(), with the genres in the order the service lists them (by title, not slug). */
const countedInServedOrder = async (): Promise<Listed> => {
  const direct = await counted()
  const titles = await server.sql<{ slug: string }>("SELECT slug FROM genres ORDER BY lower(title), id")
  const bySlug = new Map(direct.genres)
  return { ...direct, genres: titles.map((g): [string, number] => [g.slug, bySlug.get(g.slug)!]) }
}
