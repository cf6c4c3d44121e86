/**
 * The statement of /v1/songs/{id}/similar: three groups of public songs (a shared performer, else
 * a shared writer, else a shared genre), each its 10 most watched-per-day songs. How each group
 * is read, and why: docs/query-plans.md ("Similar songs").
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SIMILAR_ORDER, similarSongs } from "../Domain/SongDetail.js"

/**
 * How a group's songs are read, chosen by their number `size` (kept, or counted: `exact`) against
 * `catalogue` (live songs):
 * - `collect`: the members from their link rows, each song read, then sorted (`size` songs);
 * - `hash`: walk `songs_public_trending_idx` index-only, each entry looked up in the members
 *   hashed once (`size` link entries, then ~10 x catalogue / size index entries);
 * - `probe`: the same walk with a probe of the entry's link rows (~10 x catalogue / size probes).
 * Measured at 1M songs: collecting a song costs about 100 walked entries, a probe about 25 hashed
 * members; so collect below ~300 songs at 1M, probe above ~15,000.
 */
export const SIMILAR_WAYS = { collectWhile: "10 * size * size < catalogue", hashWhile: "size * size <= 250 * catalogue" }

const ruleSql = (rule: string, size: string) => rule.replaceAll("size", size).replaceAll("catalogue", "s.catalogue")

const waySql = (size: string) =>
  `CASE WHEN ${ruleSql(SIMILAR_WAYS.collectWhile, size)} THEN 'collect'
        WHEN ${ruleSql(SIMILAR_WAYS.hashWhile, size)} THEN 'hash' ELSE 'probe' END`

/**
 * Is a later group of kept size `size` counted after the earlier groups' songs are taken out: when
 * it is not collected anyway and the earlier groups (of kept size `earlier`) could hold half of it.
 */
const leftMatterSql = (size: string, earlier: string) =>
  `NOT ${ruleSql(SIMILAR_WAYS.collectWhile, size)} AND 2 * (${earlier}) >= ${size}`

interface Group {
  /** its column of the `ways` CTE */
  readonly way: string
  /** an array of its songs' ids (any state, maybe repeated) */
  readonly members: string
  /** is walked song `s` a member: a probe of its own link rows */
  readonly member: string
  /** what else walked or collected song `s` must pass: not in an earlier group */
  readonly also: string
}

/**
 * Does song `s` have a credit of `tag` by an artist of `artists` (an array)? A probe of the song's
 * own few credits (OFFSET 0: not a join); `IN (SELECT ...)` would start from the artist's credits.
 */
const creditedSql = (tag: string, artists: string) =>
  `EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
           WHERE c.song_id = s.id AND c.artist_id = ANY (${artists}) OFFSET 0)`

/** The songs credited as `tag` to `artists` (an array). */
const creditedSongsSql = (tag: string, artists: string) =>
  `SELECT c.song_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
   WHERE c.artist_id = ANY (${artists})`

/**
 * A group's 10 most watched-per-day public songs other than the song itself, collected or walked;
 * one arm runs (one-time filters on the way). The walk reads the trending index's live songs
 * index-only: a member test per entry, then `also` and a public probe for members only. The
 * members are an array unnested, which the planner counts as a few rows whatever their number:
 * so a collection starts from them, and the walk's test is a hashed subplan (a big estimate
 * would make it a scan of the members per entry).
 */
const groupSql = ({ also, member, members, way }: Group) => {
  const memberIds = `SELECT unnest(${members})`
  return `
  SELECT s.* FROM public_songs s WHERE s.id IN (
    (SELECT s.id FROM public_songs s
     WHERE (SELECT ${way} FROM ways) = 'collect' AND s.id <> (SELECT id FROM me) AND s.id IN (${memberIds}) AND ${also}
     ORDER BY ${SIMILAR_ORDER} LIMIT 10)
    UNION ALL
    (SELECT s.id FROM songs s
     WHERE (SELECT ${way} FROM ways) <> 'collect' AND song_is_live(s.published_at, s.deleted_at)
       AND s.id <> (SELECT id FROM me)
       AND CASE WHEN CASE WHEN (SELECT ${way} FROM ways) = 'hash' THEN s.id IN (${memberIds}) ELSE ${member} END
                THEN ${also} AND EXISTS (SELECT 1 FROM public_songs p WHERE p.id = s.id OFFSET 0)
                ELSE false END
     ORDER BY ${SIMILAR_ORDER} LIMIT 10))`
}

/** The song's own performers, writers and genres, as arrays of ids (a column of `mine` each). */
const performers = "(SELECT performers FROM mine)::int[]"
const writers = "(SELECT writers FROM mine)::int[]"
const genres = "(SELECT genres FROM mine)::int[]"
const myCreditsSql = (tag: string) =>
  `ARRAY(SELECT DISTINCT c.artist_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}' WHERE c.song_id = me.id)`

/** The kept public songs of `artists` in `tag`. */
const artistsSizeSql = (tag: string, artists: string) =>
  `(SELECT sum(k.settled_songs) FROM artist_tag_song_counts k WHERE k.tag = '${tag}' AND k.artist_id = ANY (${artists}))`

const performerSongs = creditedSongsSql("performer", performers)
const writerSongs = creditedSongsSql("writer", writers)
const genreSongs = `SELECT g.song_id FROM song_genres g WHERE g.genre_id = ANY (${genres})`
const notPerformed = `NOT ${creditedSql("performer", performers)}`
const notWritten = `NOT ${creditedSql("writer", writers)}`

/**
 * The members of a later group: those left after the earlier groups' (a CTE `left_<way>` of their
 * ids) when `exact` has their number, else all (each then tested against the earlier groups).
 */
const laterMembersSql = (way: string, all: string) =>
  `CASE WHEN (SELECT ${way} FROM exact) IS NOT NULL THEN (SELECT ids FROM left_${way}) ELSE ARRAY(${all}) END`

/**
 * Similar songs, public rows only: each candidate song belongs to the first group it matches (a
 * shared performer, else a shared writer, else a shared genre); each array is its group's 10 most
 * watched-per-day public songs. Zero rows when the song is not public. Exclusions from earlier
 * groups are probes of the candidate's own credits, so a prolific performer's songs (47k at 1M)
 * are never collected to be excluded. When the earlier groups could hold half of a later group's
 * songs, the songs left after theirs are counted first (`exact`, reading the earlier groups' link
 * rows index-only) and that number chooses its way: a singer-songwriter's written songs are
 * nearly all performed by him, and a walk for the few left would read the whole index.
 */
const beforeId = `
  WITH me AS (SELECT id FROM public_songs WHERE id = `

const afterId = `),
  mine AS MATERIALIZED (
    SELECT ${myCreditsSql("performer")} AS performers, ${myCreditsSql("writer")} AS writers,
           ARRAY(SELECT genre_id FROM song_genres g WHERE g.song_id = me.id) AS genres
    FROM me),
  sizes AS MATERIALIZED (
    SELECT coalesce(${artistsSizeSql("performer", performers)}, 0) AS performers,
           coalesce(${artistsSizeSql("writer", writers)}, 0) AS writers,
           coalesce((SELECT sum(k.settled_songs) FROM genre_song_counts k WHERE k.genre_id = ANY (${genres})), 0) AS genres,
           (SELECT live_songs FROM catalogue_counts) AS catalogue),
  left_writers AS MATERIALIZED (SELECT ARRAY(${writerSongs} EXCEPT ${performerSongs}) AS ids),
  left_genres AS MATERIALIZED (SELECT ARRAY(${genreSongs} EXCEPT ${performerSongs} EXCEPT ${writerSongs}) AS ids),
  exact AS MATERIALIZED (
    SELECT CASE WHEN ${leftMatterSql("s.writers", "s.performers")} THEN (SELECT cardinality(ids) FROM left_writers) END AS writers,
           CASE WHEN ${leftMatterSql("s.genres", "s.performers + s.writers")} THEN (SELECT cardinality(ids) FROM left_genres) END AS genres
    FROM sizes s),
  ways AS MATERIALIZED (
    SELECT ${waySql("s.performers")} AS performers, ${waySql("coalesce(e.writers, s.writers)")} AS writers,
           ${waySql("coalesce(e.genres, s.genres)")} AS genres
    FROM sizes s, exact e),
  artist_songs AS (${groupSql({
  way: "performers",
  members: `ARRAY(${performerSongs})`,
  member: creditedSql("performer", performers),
  also: "true"
})}),
  writer_songs AS (${groupSql({
  way: "writers",
  members: laterMembersSql("writers", writerSongs),
  member: creditedSql("writer", writers),
  also: notPerformed
})}),
  genre_songs AS (${groupSql({
  way: "genres",
  members: laterMembersSql("genres", genreSongs),
  member: `EXISTS (SELECT 1 FROM song_genres g WHERE g.song_id = s.id AND g.genre_id = ANY (${genres}) OFFSET 0)`,
  also: `${notPerformed} AND ${notWritten}`
})})
  SELECT ${similarSongs.json("artist_songs", "writer_songs", "genre_songs")}::text AS json
  FROM me`

/** The statement with the song's id in its one place (a prepared statement: src/Database/Statements.ts). */
export const similarSql = (sql: SqlClient.SqlClient) => (id: number) =>
  sql<{ readonly json: string }>`${sql.literal(beforeId)}${id}${sql.literal(afterId)}`
