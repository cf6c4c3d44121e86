import { beforeAll, describe, expect, test } from "bun:test"
import { sharedServer, type TestServer } from "./support/server.js"

// A LANGUAGE sql function that PostgreSQL does not inline (a scalar one whose body has a subquery
// or a FROM) is parsed and planned again at every execution of the statement that calls it, for
// each call site: ~0.1-1 ms a call at 100k songs. Such bodies are written in
// PL/pgSQL, which keeps its plans for the session. This reads the migrated schema and fails on a
// new one.

/**
 * Never called by a read: the write triggers' (name_grams, song_is_settled; search_lexemes and
 * search_split, which compute a search row's stored words).
 */
const WRITE_PATH_ONLY = ["name_grams", "search_lexemes", "search_split", "song_is_settled"]

describe("functions a read calls are planned once per session", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await sharedServer()
  }, 60_000)

  test("no scalar LANGUAGE sql function with a subquery or a FROM, but the write path's", async () => {
    const rows = await server.sql<{ name: string }>(`
      SELECT p.proname::text AS name FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f' AND NOT p.proretset
        AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql') AND p.provolatile <> 'v'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d
                        WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
        -- extract(year FROM x) and a IS DISTINCT FROM b are expressions, not FROM clauses
        AND regexp_replace(regexp_replace(lower(pg_get_functiondef(p.oid)), 'extract\\(\\s*\\w+\\s+from', 'extract(', 'g'),
                           '\\mis\\s+(not\\s+)?distinct\\s+from\\M', 'is distinct', 'g') ~ '\\(\\s*select\\M|\\mfrom\\M'
      ORDER BY 1`)
    expect(rows.map((row) => row.name)).toEqual(WRITE_PATH_ONLY)
  })

  test("the PL/pgSQL bodies answer: a count of each kind runs without error", async () => {
    const [row] = await server.sql<Record<string, number | null>>(`SELECT
      visible_artist_count() AS artists, artist_kept_name_count('a', NULL) AS named,
      short_member_query_count('a') AS members, public_songs_released_between(date '2000-01-01', date '2030-01-01') AS songs,
      public_genre_song_count(1) AS genre, public_label_song_count(1) AS label, public_artist_album_count(1) AS albums,
      public_artist_tag_song_count(1, 'performer') AS performed,
      (SELECT songs_before FROM public_song_popular_seek(3)) AS popular,
      (SELECT songs_before FROM public_song_release_seek(date '2000-01-01', date '2030-01-01', true, 3)) AS released`)
    for (const value of Object.values(row!)) expect(typeof value).toBe("number")
  })
})
