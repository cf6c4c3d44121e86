import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startServer, type TestServer } from "./support/server.js"

// Its own server and database: the test declares a count of its own and changes rows.
let server: TestServer
beforeAll(async () => void (server = await startServer()), 60_000)
afterAll(() => server.stop().then(() => server.database.drop()), 30_000)

/** kept_counts() with one more line, as a reader adding a kept count would write it. */
const declareOneMore = async (line: string) => {
  const [{ body }] = await server.sql<{ body: string }>("SELECT prosrc AS body FROM pg_proc WHERE proname = 'kept_counts'") as [
    { body: string }
  ]
  const [{ returns }] = await server.sql<{ returns: string }>(
    "SELECT pg_get_function_result('kept_counts'::regproc) AS returns"
  ) as [{ returns: string }]
  await server.sql(
    `CREATE OR REPLACE FUNCTION kept_counts() RETURNS ${returns} LANGUAGE sql IMMUTABLE AS $body$${body.trimEnd()},\n  ${line}\n$body$`
  )
  await server.sql("SELECT attach_count_triggers()")
}

describe("a kept count declared by one line", () => {
  test("is kept through writes of its source and of the songs, and recounted from the same line", async () => {
    await server.sql("CREATE TABLE role_live_credits (role_id integer PRIMARY KEY, live integer DEFAULT 0 NOT NULL)")
    await declareOneMore("('role_live_credits', 'role_id', 'live', 'credits', 'live song', '1', true)")
    await server.sql("SELECT recount_kept_counts(ARRAY['role_live_credits'])")

    const kept = () => server.sql<{ role_id: number; live: number }>("SELECT role_id, live FROM role_live_credits WHERE live <> 0 ORDER BY 1")
    const counted = () =>
      server.sql<{ role_id: number; live: number }>(`
        SELECT c.role_id, count(*)::int AS live FROM credits c JOIN songs s ON s.id = c.song_id
        WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY c.role_id ORDER BY 1`)
    const before = await counted()
    expect(before.length).toBeGreaterThan(1)
    expect(await kept()).toEqual(before)

    const [{ song, artist, role }] = await server.sql<{ song: number; artist: number; role: number }>(`
      SELECT c.song_id AS song, c.artist_id AS artist, c.role_id AS role FROM credits c JOIN songs s ON s.id = c.song_id
      WHERE song_is_live(s.published_at, s.deleted_at) ORDER BY c.song_id, c.position LIMIT 1`) as [
        { song: number; artist: number; role: number }
      ]
    const steps = [
      // a credit added and one removed (the source's own writes)
      `INSERT INTO credits (song_id, position, artist_id, role_id) SELECT ${song}, max(position) + 1, ${artist}, ${role} FROM credits WHERE song_id = ${song}`,
      `DELETE FROM credits WHERE song_id = ${song} AND position = (SELECT max(position) FROM credits WHERE song_id = ${song})`,
      // the song unpublished, deleted, published again (songs_count_trigger moves the count)
      `UPDATE songs SET published_at = NULL WHERE id = ${song}`,
      `UPDATE songs SET published_at = now() - interval '1 day', deleted_at = now() WHERE id = ${song}`,
      `UPDATE songs SET deleted_at = NULL WHERE id = ${song}`
    ]
    for (const step of steps) {
      await server.sql(step)
      expect({ step, kept: await kept() }).toEqual({ step, kept: await counted() })
    }
    const last = await kept()
    await server.sql("DELETE FROM role_live_credits; SELECT recount_kept_counts(ARRAY['role_live_credits'])")
    expect(await kept()).toEqual(last)
  }, 120_000)
})
