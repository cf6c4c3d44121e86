import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { artistVisibleSql } from "../src/Domain/Artist.js"
import { everyKindOfChange, expectEveryStepCounted } from "./support/keptCountSteps.js"
import { startServer, type TestServer } from "./support/server.js"

/**
 * Which artists are visible is defined once, by the view public_artists (sql/definitions/1_rules.sql):
 * a public song credit or a public album naming the artist. The reads that cannot afford the view
 * ask the kept counts instead, in four forms: artistVisibleSql (inline in the artists list's
 * statements), search_artist_visible (search), visible_unsettled_artists with the settled artists
 * of artist_song_counts (the lists in name order) and visible_artist_count (their total). Each must
 * name exactly the view's artists, whatever changed.
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

/** The artists each form names, by id. */
const everyForm = async () => ({
  inline: await ids(`SELECT a.id FROM artists a WHERE ${artistVisibleSql("a")} ORDER BY a.id`),
  inlineAsMatched: await ids(`
    SELECT a.id FROM artists a
    CROSS JOIN LATERAL (SELECT coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = a.id), 0) AS settled OFFSET 0) k
    LEFT JOIN due_artist_songs d ON d.artist_id = a.id
    WHERE ${artistVisibleSql("a", { settled: "k.settled", due: "d.artist_id IS NOT NULL" })} ORDER BY a.id`),
  search: await ids("SELECT a.id FROM artists a WHERE search_artist_visible(a.id) ORDER BY a.id"),
  kept: await ids(`
    SELECT artist_id AS id FROM artist_song_counts WHERE settled_songs > 0
    UNION SELECT u.id FROM visible_unsettled_artists() u ORDER BY 1`),
  total: Number((await server.sql<{ n: number }>("SELECT visible_artist_count() AS n"))[0]!.n)
})

/** What each form must name: the view's artists. */
const theView = async () => {
  const visible = await ids("SELECT id FROM public_artists ORDER BY id")
  return { inline: visible, inlineAsMatched: visible, search: visible, kept: visible, total: visible.length }
}

describe("the artist visibility rule", () => {
  test("every form of it names the artists of public_artists, on the fixture and after every kind of change", async () => {
    const before = await everyForm()
    expect(before).toEqual(await theView())
    // the fixture has visible artists and hidden ones: a rule that named all or none would fail
    const [{ n: all } = { n: 0 }] = await server.sql<{ n: number }>("SELECT count(*)::int AS n FROM artists")
    expect(before.total).toBeGreaterThan(0)
    expect(before.total).toBeLessThan(all)
    const steps = await everyKindOfChange(server.sql)
    await expectEveryStepCounted((s) => server.sql(s), steps, async () => ({ served: await everyForm(), counted: await theView() }), before)
  }, 600_000)
})
