import { afterAll, describe, expect, test } from "bun:test"
import { fixtureDatabase } from "./support/template.js"
import { request } from "./support/http.js"
import { similarDefinition, type SimilarIds } from "./support/similarDefinition.js"
import { startServer, type TestServer } from "./support/server.js"
import { slow } from "./support/slow.js"

/**
 * /v1/songs/{id}/similar reads each group per performer, writer or genre of the song, from kept
 * orders (src/Songs/Similar.ts). A catalogue of 12,000 more songs gives groups of every
 * size (20, 400 and 3,000+ songs of a performer, a writer and a genre; writers whose written songs
 * are nearly all excluded as performed, by themselves or by another performer of the song; ties and
 * unknown views per day; hidden songs of every kind among them), and each answer must be the
 * definition's (docs/api.md) computed plainly from the source tables, in order, before and after
 * the songs' views, states, credits and genres change.
 */
const FIRST = 200_000
const SONGS = 12_000

/** `n` is the song's number from 0; one row per song, credits and genres by ranges of it (statements split at `;`). */
const catalogue = `
  INSERT INTO artists (id, name, slug)
  SELECT a, 'Ways Artist ' || a, 'ways-artist-' || a FROM generate_series(5001, 5200) AS a;
  INSERT INTO genres (id, slug, title) VALUES (501, 'ways-small', 'Small'), (502, 'ways-mid', 'Mid'),
    (503, 'ways-big', 'Big'), (504, 'ways-filler', 'Filler');
  INSERT INTO songs (id, title, slug, released_at, date_type, published_at, deleted_at, vidsvc_views_per_day)
  SELECT ${FIRST} + n, 'Ways ' || n, 'ways-' || n, date '2001-01-01' + n % 300, 'FULL',
         CASE WHEN n % 83 = 0 THEN NULL WHEN n % 89 = 0 THEN now() + interval '3 days' ELSE now() - interval '1 day' END,
         CASE WHEN n % 97 = 0 THEN now() - interval '1 hour' END,
         CASE WHEN n % 11 = 0 THEN NULL ELSE (n * 7919) % 500 END
  FROM generate_series(0, ${SONGS - 1}) AS n;
  -- performers: 5001 on 20 songs, 5002 on 400, 5003 on 3,000, and 100 others on ~86 each
  INSERT INTO credits (song_id, position, artist_id, role_id)
  SELECT ${FIRST} + n, 1, CASE WHEN n < 20 THEN 5001 WHEN n < 420 THEN 5002 WHEN n < 3420 THEN 5003 ELSE 5100 + n % 100 END, 1
  FROM generate_series(0, ${SONGS - 1}) AS n;
  -- a second performer (featured) on some songs of the big one
  INSERT INTO credits (song_id, position, artist_id, role_id)
  SELECT ${FIRST} + n, 2, 5002, 2 FROM generate_series(3000, 3100) AS n;
  -- writers: 5011 writes 20 songs, 5012 400 (composer and lyricist both), 5013 the big performer's
  -- 3,000 and 400 more (a singer-songwriter: of his written songs, nearly all are performed by him)
  INSERT INTO credits (song_id, position, artist_id, role_id)
  SELECT ${FIRST} + n, 3, 5011, 3 FROM generate_series(5000, 5019) AS n
  UNION ALL SELECT ${FIRST} + n, 4, 5012, 3 FROM generate_series(0, ${SONGS - 1}) AS n WHERE n % 30 = 0
  UNION ALL SELECT ${FIRST} + n, 5, 5012, 4 FROM generate_series(0, ${SONGS - 1}) AS n WHERE n % 30 = 0
  UNION ALL SELECT ${FIRST} + n, 6, 5013, 3 FROM generate_series(420, 3419) AS n
  UNION ALL SELECT ${FIRST} + n, 6, 5013, 3 FROM generate_series(6000, 6399) AS n
  -- 5014 performs 400 songs and writes them and 8 more: a group of 400 (hashed) with 8 left
  UNION ALL SELECT ${FIRST} + n, 7, 5014, 2 FROM generate_series(8000, 8399) AS n
  UNION ALL SELECT ${FIRST} + n, 8, 5014, 3 FROM generate_series(8000, 8404) AS n
  UNION ALL SELECT ${FIRST} + n, 8, 5014, 3 FROM generate_series(9000, 9002) AS n;
  -- genres: 20 songs of their own genre only, 400, 4,000, and the rest a filler genre
  INSERT INTO song_genres (song_id, genre_id)
  SELECT ${FIRST} + n, 501 FROM generate_series(7000, 7019) AS n
  UNION ALL SELECT ${FIRST} + n, 502 FROM generate_series(0, ${SONGS - 1}) AS n WHERE n % 30 = 1
  UNION ALL SELECT ${FIRST} + n, 503 FROM generate_series(0, ${SONGS - 1}) AS n WHERE n % 3 = 0 AND n NOT BETWEEN 7000 AND 7019
  UNION ALL SELECT ${FIRST} + n, 504 FROM generate_series(0, ${SONGS - 1}) AS n WHERE n % 3 = 2 AND n NOT BETWEEN 7000 AND 7019;
  ANALYZE songs, credits, song_genres`

/** Changes that move songs within and between groups: views per day, states, credits, genres. */
const changes = `
  UPDATE songs SET vidsvc_views_per_day = CASE WHEN id % 3 = 0 THEN NULL ELSE 900 + id % 7 END
  WHERE id BETWEEN ${FIRST} AND ${FIRST + SONGS} AND id % 5 = 0;
  UPDATE songs SET published_at = now() + interval '2 days' WHERE id IN (${FIRST + 3}, ${FIRST + 425}, ${FIRST + 8001});
  UPDATE songs SET deleted_at = now() WHERE id IN (${FIRST + 6}, ${FIRST + 3003});
  DELETE FROM credits WHERE song_id = ${FIRST + 8002} AND artist_id = 5014 AND position = 7;
  INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (${FIRST + 7001}, 9, 5001, 1), (${FIRST + 10}, 9, 5013, 4);
  DELETE FROM song_genres WHERE song_id = ${FIRST + 7002};
  INSERT INTO song_genres (song_id, genre_id) VALUES (${FIRST + 7003}, 503)`

describe("similar songs: every group, whatever its size, answers as defined", () => {
  const database = fixtureDatabase()
  let server: TestServer | undefined
  afterAll(async () => {
    await server?.stop()
    await (await database).drop()
  }, 60_000)

  const ids = [
    ...[0, 5, 19, 25, 300, 419, 420, 3000, 3050, 3419, 5000, 5010, 6000, 6100, 7000, 7001, 7003, 7005, 7019, 30, 60, 31, 61, 8000, 8002, 8200,
      8402, 9001, 10].map((n) => FIRST + n),
    ...Array.from({ length: 60 }, (_, i) => FIRST + i * 197 + 2),
    1, 2, 3, 5, 100, 13
  ]

  /** Every song's answer against the definition; the number of 404s (songs not public). */
  const compareAll = async (server: TestServer) => {
    let hidden = 0
    for (const id of ids) {
      const [expected] = await server.sql<SimilarIds>(similarDefinition, [id])
      const reply = await request(server.baseUrl, `/v1/songs/${id}/similar`)
      if (expected === undefined) {
        expect({ id, status: reply.status }).toEqual({ id, status: 404 })
        hidden++
        continue
      }
      const data = reply.body.data as Record<string, Array<{ id: number }>>
      const answer = {
        by_artist: data.by_artist!.map((s) => s.id),
        by_writers: data.by_writers!.map((s) => s.id),
        by_others: data.by_others!.map((s) => s.id)
      }
      expect({ id, ...answer }).toEqual({ id, ...expected })
    }
    return hidden
  }

  slow(test, "12,000 songs with their credits loaded, every group compared before and after changes", 10)("groups of 20, 400 and 3,000+ songs, with exclusions and hidden songs, answer as defined, before and after changes", async () => {
    // loading 12,000 songs with their credits fires every kept-count and feed trigger: no 5 s bound
    server = await startServer({ database: await database, env: { DATABASE_STATEMENT_TIMEOUT_MS: "300000" } })
    for (const statement of catalogue.split(";")) await server.sql(statement)
    expect(await compareAll(server)).toBeGreaterThan(0)
    for (const statement of changes.split(";")) await server.sql(statement)
    expect(await compareAll(server)).toBeGreaterThan(0)
  })
})
