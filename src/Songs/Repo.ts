import * as SqlClient from "@effect/sql/SqlClient"
import { batchLookup } from "../Domain/Batch.js"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { songSort, type SongSortName } from "../Domain/SongSorts.js"
import { keysetPage } from "../Domain/Keyset.js"
import { steered } from "../Domain/SteeredPage.js"
import { Statements } from "../Database.js"
import { detailReader } from "../Domain/Detail.js"
import { songContributors } from "../Domain/Member.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import { type Audience, songSource, songSummary } from "../Domain/Song.js"
import { SIMILAR_ORDER, similarSongs, songDetail, staffSongDetail } from "../Domain/SongDetail.js"
import { withSpan } from "../Spans.js"

const lit = Statement.unsafeFragment


/**
 * One song's detail, as JSON built in one statement. Staff see every state and get the
 * song's `status` and `deleted_at` at the end; `published_at` is then null while never published.
 */
export const songDetailSql = (audience: Audience) => `
  SELECT ${audience === "public" ? songDetail.json("s", "public") : staffSongDetail.json("s")}::text AS json
  FROM ${songSource(audience)} s
  WHERE s.id = `

/**
 * Similar songs: each candidate song belongs to the first group it matches (a shared
 * performer, else a shared writer, else a shared genre); each array is its group's 10 most
 * watched-per-day public songs. Zero rows when the song is not public.
 */
/** A group whose artists have this many public songs (kept, any role) is walked in trending order. */
const SIMILAR_DENSE_SONGS = 3000

/** Does public song `s` have a credit of `tag` by an artist of `artists`? A probe per row (OFFSET 0: not a join). */
const creditedSql = (tag: string, artists: string) =>
  `EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
           WHERE c.song_id = s.id AND c.artist_id IN (SELECT artist_id FROM ${artists}) OFFSET 0)`

const trending = SIMILAR_ORDER

/**
 * Are the group's artists' songs dense in trending order: SIMILAR_DENSE_SONGS public songs of any
 * role (kept), and as many credits of the group's own role (counted, stopping there)? A prolific
 * writer who rarely performs is not dense as a performer: walking for their few performances
 * passed the statement timeout at 1M songs.
 */
const denseSql = (tag: string, artists: string) => `CASE
  WHEN coalesce((SELECT sum(ac.settled_songs) FROM artist_song_counts ac
                 WHERE ac.artist_id IN (SELECT artist_id FROM ${artists})), 0) >= ${SIMILAR_DENSE_SONGS}
  THEN (SELECT count(*) FROM (
          SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
          WHERE c.artist_id IN (SELECT artist_id FROM ${artists}) LIMIT ${SIMILAR_DENSE_SONGS}) tagged) >= ${SIMILAR_DENSE_SONGS}
  ELSE false END`

/**
 * A group's 10 most watched-per-day public songs other than $1, credited as `tag` to `artists`
 * and passing `also`: walked in `songs_public_trending_idx` order with a credit probe per song
 * when the artists are prolific (`dense`; the walk stops after 10 hits), else collected from
 * their credits and sorted. One of the two arms runs (a one-time filter on `dense`).
 */
const groupSql = (tag: string, artists: string, dense: string, also: string) => `
  SELECT * FROM (
    (SELECT s.* FROM public_songs s
     WHERE (SELECT ${dense} FROM dense) AND s.id <> $1 AND ${creditedSql(tag, artists)} AND ${also}
     ORDER BY ${trending} LIMIT 10)
    UNION ALL
    (SELECT s.* FROM public_songs s
     WHERE NOT (SELECT ${dense} FROM dense) AND s.id <> $1 AND ${also}
       AND s.id IN (SELECT c.song_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
                    WHERE c.artist_id IN (SELECT artist_id FROM ${artists}))
     ORDER BY ${trending} LIMIT 10)) s
  ORDER BY ${trending} LIMIT 10`

/**
 * Similar songs, public rows only: each candidate song belongs to the first group it matches (a shared
 * performer, else a shared writer, else a shared genre); each array is its group's 10 most
 * watched-per-day public songs. Zero rows when the song is not public. Exclusions from earlier
 * groups are probes of the candidate's own credits, so a prolific performer's songs (47k at 1M)
 * are never collected to be excluded.
 */
const similarSql = `
  WITH me AS (SELECT id FROM public_songs WHERE id = $1),
  my_performers AS MATERIALIZED (
    SELECT DISTINCT c.artist_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer' WHERE c.song_id = $1),
  my_writers AS MATERIALIZED (
    SELECT DISTINCT c.artist_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'writer' WHERE c.song_id = $1),
  dense AS MATERIALIZED (
    SELECT ${denseSql("performer", "my_performers")} AS performers, ${denseSql("writer", "my_writers")} AS writers),
  artist_songs AS (${groupSql("performer", "my_performers", "performers", "true")}),
  writer_songs AS (${groupSql("writer", "my_writers", "writers", `NOT ${creditedSql("performer", "my_performers")}`)}),
  genre_songs AS (
    SELECT s.* FROM public_songs s
    WHERE s.id <> $1
      AND EXISTS (SELECT 1 FROM song_genres g
                  WHERE g.song_id = s.id AND g.genre_id IN (SELECT genre_id FROM song_genres WHERE song_id = $1))
      AND NOT ${creditedSql("performer", "my_performers")}
      AND NOT ${creditedSql("writer", "my_writers")}
    ORDER BY ${trending} LIMIT 10)
  SELECT ${similarSongs.json("artist_songs", "writer_songs", "genre_songs")}::text AS json
  FROM me`

/** Song contributors (src/Domain/Member.ts). Zero rows when the audience may not see the song. */
const contributorsSql = (audience: Audience) => `
  SELECT ${songContributors.json("s")}::text AS json
  FROM ${songSource(audience)} s
  WHERE s.id = `

export interface SongBrowse {
  readonly genre?: string | undefined
  readonly label?: number | undefined
  readonly year?: number | undefined
  readonly sort?: SongSortName | undefined
  readonly order?: "asc" | "desc" | undefined
}

const firstJson = (rows: ReadonlyArray<{ json: string }>) => Option.fromNullable(rows[0]?.json)

export class SongsRepo extends Effect.Service<SongsRepo>()("catalogue/SongsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Statements

    /** Song detail as JSON text; None when the audience may not see the song. Staff: any state, plus status. */
    const findSong = detailReader(sql, statements, songDetailSql, "SongsRepo.findSong")

    /** Similar songs as JSON text; None when the song is not public. */
    const findSimilarSongs = (songId: number) =>
      sql.unsafe<{ json: string }>(similarSql, [songId]).pipe(
        Effect.map(firstJson),
        Effect.orDie,
        withSpan("SongsRepo.findSimilarSongs")
      )

    /** Song contributors as JSON text; None when the audience may not see the song. */
    const findSongContributors = detailReader(sql, statements, contributorsSql, "SongsRepo.findSongContributors")

    /**
     * The browse's total from kept counts: one filter or none from sql/0003 and 0006, two or three
     * from sql/0018's song_facet_counts. An unknown genre slug matches nothing.
     */
    const keptSongTotal = (browse: SongBrowse): Statement.Fragment => {
      const given = [browse.genre, browse.label, browse.year].filter((value) => value !== undefined).length
      if (given > 1) {
        const facets = (genre: Statement.Fragment) =>
          sql`public_song_facet_count(${genre}, CAST(${browse.label ?? null} AS integer), CAST(${browse.year ?? null} AS integer))`
        return browse.genre === undefined
          ? sql`SELECT ${facets(sql`NULL`)}`
          : sql`SELECT coalesce((SELECT ${facets(sql`g.id`)} FROM genres g WHERE g.slug = ${browse.genre}), 0)`
      }
      if (browse.genre !== undefined) {
        return sql`SELECT coalesce((SELECT public_genre_song_count(g.id) FROM genres g WHERE g.slug = ${browse.genre}), 0)`
      }
      if (browse.label !== undefined) {
        return sql`SELECT coalesce((SELECT song_count FROM public_label_counts WHERE label_id = ${browse.label}), 0)`
      }
      if (browse.year !== undefined) {
        return sql`SELECT public_songs_released_between(CAST(${`${browse.year}-01-01`} AS date),
                                                        CAST(${`${browse.year + 1}-01-01`} AS date))`
      }
      return sql`SELECT songs FROM public_catalogue_counts`
    }

    /**
     * Where an ascending walk of the public songs (without genre or label) reaches a position, from
     * kept counts: the sort's buckets (sql/0021), or in release order within a year its per-date
     * counts (sql/0018). None for popular and title order within a year.
     */
    const songSeek = (sortName: SongSortName, year: number | undefined) => {
      if (year === undefined) {
        return (position: Statement.Fragment) =>
          sql`SELECT bound_key AS key, bound_id AS tie, songs_before AS rows_before FROM ${lit(`public_song_${sortName}_seek`)}(${position})`
      }
      return sortName !== "released" ? undefined : (position: Statement.Fragment) =>
        sql`SELECT released_at AS key, -2147483648 AS tie, songs_before AS rows_before FROM public_song_release_seek(
              CAST(${`${year}-01-01`} AS date), CAST(${`${year + 1}-01-01`} AS date), false, ${position})`
    }

    /** Browse of public songs. */
    const listSongs = (browse: SongBrowse, page: PageParamsInput) => {
      const sortName = browse.sort ?? "released"
      const order = browse.order ?? (sortName === "title" ? "asc" : "desc")
      // each filter as a join for collecting few matches, and as a probe (OFFSET 0) for walking in order
      const collect: Array<Statement.Fragment> = []
      const walk: Array<Statement.Fragment> = []
      if (browse.genre !== undefined) {
        // the genre's id as one value: the planner can start from a year's range and probe each song's genres
        const genre = sql`(SELECT id FROM genres WHERE slug = ${browse.genre})`
        collect.push(sql`EXISTS (SELECT 1 FROM song_genres sg WHERE sg.song_id = s.id AND sg.genre_id = ${genre})`)
        walk.push(sql`EXISTS (SELECT 1 FROM song_genres sg WHERE sg.song_id = s.id AND sg.genre_id = ${genre} OFFSET 0)`)
      }
      if (browse.label !== undefined) {
        collect.push(sql`EXISTS (SELECT 1 FROM song_labels sl WHERE sl.song_id = s.id AND sl.label_id = ${browse.label})`)
        walk.push(sql`EXISTS (SELECT 1 FROM song_labels sl WHERE sl.song_id = s.id AND sl.label_id = ${browse.label} OFFSET 0)`)
      }
      if (browse.year !== undefined) {
        const year = sql`s.released_at >= CAST(${`${browse.year}-01-01`} AS date)
                         AND s.released_at < CAST(${`${browse.year + 1}-01-01`} AS date)`
        collect.push(year)
        walk.push(year)
      }
      const scope = `songs|${sortName}|${order}|g=${browse.genre ?? ""}|l=${browse.label ?? ""}|y=${browse.year ?? ""}`
      const seek = browse.genre === undefined && browse.label === undefined ? songSeek(sortName, browse.year) : undefined
      // in release order a year is a range of the index: its walk reads that year's songs at most, never collected
      const walkOnly = seek !== undefined || (sortName === "released" && browse.year !== undefined)
      // with a year, its range (~25k songs at 1M) drives the collection: a prepared statement's plan
      // cannot tell a label of 90k songs from one of 500
      const steer = { collect: walkOnly ? [] : browse.year !== undefined ? walk : collect, scale: sql`SELECT live_songs FROM catalogue_counts`, seek }
      return keysetPage(songSort(sortName, order === "desc"), walk, page, scope, { total: keptSongTotal(browse), steer: steered(steer) }).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("SongsRepo.listSongs")
      )
    }

    /** `ids=`: the asked public songs' summaries, in the order asked. */
    const listSongsByIds = (ids: ReadonlyArray<number>) =>
      batchLookup("public_songs s", "s", songSummary.json("s"), ids).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("SongsRepo.listSongsByIds")
      )

    return { findSong, findSimilarSongs, findSongContributors, listSongs, listSongsByIds } as const
  })
}) {}
