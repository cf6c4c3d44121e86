import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { everyKindOfChange, expectEveryStepCounted } from "./support/keptCountSteps.js"
import { startServer, type TestServer } from "./support/server.js"
import { slow } from "./support/slow.js"

/**
 * Which artists are visible (docs/data-model.md): those with a public song credit or a public album
 * naming them. The rule is written once, artist_visibility (sql/definitions/1_rules.sql), and
 * decides it from the kept counts; everything else reads it: the view public_artists (details,
 * ids=, members, namesakes), artist_is_visible (search), the artists list's `q` matches (the rule
 * itself, inlined into src/Artists/Repo.ts), and the list's two parts, the artists with a settled song with visible_unsettled_artists (name order),
 * visible_artist_count (its total) and artists_by_song_count (song-count order). Each must name
 * exactly the artists the definition names from the rows themselves, whatever changed.
 */

// Its own server and database: the steps below change rows that other test files assert on.
let server: TestServer
beforeAll(async () => {
  server = await startServer()
}, 60_000)
afterAll(async () => {
  await server.stop()
  await server.database.drop()
})

const ids = async (text: string) => (await server.sql<{ id: number }>(text)).map((row) => row.id)

/** The definition, counted from the rows themselves: a public song credit or a public album. */
const byDefinition = `
  SELECT a.id FROM artists a
  WHERE EXISTS (SELECT 1 FROM credits c JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = a.id)
     OR EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = a.id)
  ORDER BY a.id`

/** The artists each reader names, by id. */
const everyReader = async () => ({
  rule: await ids("SELECT a.id FROM artists a CROSS JOIN LATERAL artist_visibility(a.id) v WHERE v.visible ORDER BY a.id"),
  view: await ids("SELECT id FROM public_artists ORDER BY id"),
  value: await ids("SELECT a.id FROM artists a WHERE artist_is_visible(a.id) ORDER BY a.id"),
  byName: await ids(`
    SELECT artist_id AS id FROM artist_song_counts WHERE settled_songs > 0
    UNION ALL SELECT u.id FROM visible_unsettled_artists() u ORDER BY 1`),
  bySongs: await ids("SELECT id FROM artists_by_song_count(NULL, NULL, NULL, 0, 1000000) ORDER BY id"),
  total: Number((await server.sql<{ n: number }>("SELECT visible_artist_count() AS n"))[0]!.n)
})

/** What each reader must name: the definition's artists. */
const theDefinition = async () => {
  const visible = await ids(byDefinition)
  return { rule: visible, view: visible, value: visible, byName: visible, bySongs: visible, total: visible.length }
}

/**
 * How many visible artists each part of the rule alone shows: by a public album only, and by due
 * songs only (public, but still listed as scheduled: no write has settled them).
 */
const visibleByOnePart = async () => {
  const [row] = await server.sql<{ album_only: number; due_only: number }>(`
    WITH visible AS (${byDefinition}),
    credited AS (
      SELECT c.artist_id, bool_and(EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id)) AS due_only
      FROM credits c JOIN public_songs s ON s.id = c.song_id GROUP BY c.artist_id)
    SELECT count(*) FILTER (WHERE k.artist_id IS NULL)::int AS album_only,
           count(*) FILTER (WHERE k.due_only)::int AS due_only
    FROM visible v LEFT JOIN credited k ON k.artist_id = v.id`)
  return row!
}

describe("the artist visibility rule", () => {
  slow(test, "every kind of change, each followed by every reader compared with the definition", 10)("every reader of it names the artists of the definition, on the fixture and after every kind of change", async () => {
    const before = await everyReader()
    expect(before).toEqual(await theDefinition())
    // visible artists and hidden ones: a reader that named all or none would fail
    const [{ n: artists } = { n: 0 }] = await server.sql<{ n: number }>("SELECT count(*)::int AS n FROM artists")
    expect(before.total).toBeGreaterThan(0)
    expect(before.total).toBeLessThan(artists)
    // and, among the steps, artists visible by an album alone and by due songs alone: a reader
    // that dropped either part of the rule would fail
    const seen = { albumOnly: 0, dueOnly: 0 }
    const steps = await everyKindOfChange(server.sql)
    await expectEveryStepCounted((s) => server.sql(s), steps, async () => {
      const parts = await visibleByOnePart()
      seen.albumOnly += parts.album_only
      seen.dueOnly += parts.due_only
      return { served: await everyReader(), counted: await theDefinition() }
    }, before)
    expect(seen.albumOnly).toBeGreaterThan(0)
    expect(seen.dueOnly).toBeGreaterThan(0)
  })
})
