/**
 * The statement of /v1/songs/{id}/similar: three groups of public songs (a shared performer, else
 * a shared writer, else a shared genre), each its 10 most watched-per-day songs. Each group is read
 * per performer, writer or genre of the song: the first public entries of its range of an index in
 * that order (the kept orders' similar indexes), merged. Why, and what bounds it: docs/query-plans.md ("Similar songs").
 */
import type * as SqlClient from "effect/sql/SqlClient"
import { similarSongs } from "../Shapes/SongDetail.js"

/** The song's own performers, writers and genres, as arrays of ids (a column of `mine` each). */
const performers = "(SELECT performers FROM mine)::int[]"
const writers = "(SELECT writers FROM mine)::int[]"
const genres = "(SELECT genres FROM mine)::int[]"
const myCreditsSql = (tag: string) =>
  `ARRAY(SELECT DISTINCT c.artist_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}' WHERE c.song_id = me.id)`

/**
 * Is entry `o`'s song in an earlier group: a probe of the song's own few artist rows (OFFSET 0: not
 * a join, which could start from an earlier group's artists' songs).
 */
const earlierSql = (performed: boolean, written: boolean) => {
  const tests = [
    ...(performed ? [`x.performer AND x.artist_id = ANY (${performers})`] : []),
    ...(written ? [`x.writer AND x.artist_id = ANY (${writers})`] : [])
  ]
  return `NOT EXISTS (SELECT 1 FROM artist_song_orders x WHERE x.song_id = o.song_id AND (${tests.join(" OR ")}) OFFSET 0)`
}

/**
 * The first 10 public entries of one range of `table` (in the similar order of the
 * indexes) other than the song itself that pass `also`: 10 entries read, and those `also` refuses.
 */
const rangeSql = (table: string, range: string, also: string) => `
    (SELECT o.song_id, o.per_day FROM ${table} o
     WHERE ${range} AND song_is_public(o.public_from, NULL) AND o.song_id <> (SELECT id FROM me) AND ${also}
     ORDER BY o.per_day DESC NULLS LAST, o.song_id DESC LIMIT 10)`

/**
 * A group's songs: the ranges of each of `owners` (an array; `a.id` in `ranges`), merged, their 10
 * first distinct songs. Any song of the group's first 10 is among the first 10 of each range it is in.
 */
const groupSql = (owners: string, ranges: string) => `
  SELECT s.* FROM public_songs s WHERE s.id IN (
    SELECT m.song_id FROM (
      SELECT DISTINCT r.song_id, r.per_day
      FROM unnest(${owners}) AS a(id) CROSS JOIN LATERAL (${ranges}) r
      ORDER BY r.per_day DESC NULLS LAST, r.song_id DESC LIMIT 10) m)`

/** A performer's songs (artist_song_orders_performed_idx). */
const performerRanges = rangeSql("artist_song_orders", "o.artist_id = a.id AND o.performer", "true")

/**
 * A writer's songs, those they do not perform and those they do apart (artist_song_orders_written_idx):
 * the second range is skipped whole when the writer performs the song asked about, for then all of
 * it is in the first group (a singer-songwriter's written songs are nearly all performed by him).
 */
const writerRanges = `${rangeSql("artist_song_orders", "o.artist_id = a.id AND o.writer AND NOT o.performer", earlierSql(true, false))}
    UNION ALL
    ${
  rangeSql("artist_song_orders", `o.artist_id = a.id AND o.writer AND o.performer AND a.id <> ALL (${performers})`, earlierSql(true, false))
}`

/** A genre's songs (owner_song_orders_genre_trending_idx). */
const genreRanges = rangeSql("owner_song_orders", "o.owner = 'g' AND o.owner_id = a.id", earlierSql(true, true))

/**
 * Similar songs, public rows only: each candidate song belongs to the first group it matches (a
 * shared performer, else a shared writer, else a shared genre); each array is its group's 10 most
 * watched-per-day public songs. Zero rows when the song is not public.
 */
const beforeId = `
  WITH me AS (SELECT id FROM public_songs WHERE id = `

const afterId = `),
  mine AS MATERIALIZED (
    SELECT ${myCreditsSql("performer")} AS performers, ${myCreditsSql("writer")} AS writers,
           ARRAY(SELECT genre_id FROM song_genres g WHERE g.song_id = me.id) AS genres
    FROM me),
  artist_songs AS (${groupSql(performers, performerRanges)}),
  writer_songs AS (${groupSql(writers, writerRanges)}),
  genre_songs AS (${groupSql(genres, genreRanges)})
  SELECT ${similarSongs.json("artist_songs", "writer_songs", "genre_songs")}::text AS json
  FROM me`

/** The statement with the song's id in its one place (a prepared statement: src/Database/Statements.ts). */
export const similarSql = (sql: SqlClient.SqlClient) => (id: number) =>
  sql<{ readonly json: string }>`${sql.literal(beforeId)}${id}${sql.literal(afterId)}`
