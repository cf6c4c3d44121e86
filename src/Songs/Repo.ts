import * as SqlClient from "@effect/sql/SqlClient"
import { batchLookup } from "../Domain/Batch.js"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { songSort, type SongSortName } from "../Domain/SongSorts.js"
import { keysetPage } from "../Domain/Keyset.js"
import { PoolQuery } from "../Database.js"
import { jsonById } from "../Domain/Detail.js"
import { songContributors } from "../Domain/Member.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import { type Audience, songSource, songSummary } from "../Domain/Song.js"
import { SIMILAR_ORDER, similarSongs, songDetail, staffSongDetail } from "../Domain/SongDetail.js"
import { withSpan } from "../Spans.js"


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
    SELECT
      coalesce((SELECT sum(ac.settled_songs) FROM artist_song_counts ac
                WHERE ac.artist_id IN (SELECT artist_id FROM my_performers)), 0) >= ${SIMILAR_DENSE_SONGS} AS performers,
      coalesce((SELECT sum(ac.settled_songs) FROM artist_song_counts ac
                WHERE ac.artist_id IN (SELECT artist_id FROM my_writers)), 0) >= ${SIMILAR_DENSE_SONGS} AS writers),
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
    const query = yield* PoolQuery
    const detailById = { public: jsonById(query, songDetailSql("public")), staff: jsonById(query, songDetailSql("staff")) } as const
    const contributorsById = { public: jsonById(query, contributorsSql("public")), staff: jsonById(query, contributorsSql("staff")) } as const

    /** Song detail as JSON text; None when the audience may not see the song. Staff: any state, plus status. */
    const findSong = (songId: number, audience: Audience) =>
      detailById[audience](songId).pipe(
        Effect.orDie,
        withSpan("SongsRepo.findSong")
      )

    /** Similar songs as JSON text; None when the song is not public. */
    const findSimilarSongs = (songId: number) =>
      sql.unsafe<{ json: string }>(similarSql, [songId]).pipe(
        Effect.map(firstJson),
        Effect.orDie,
        withSpan("SongsRepo.findSimilarSongs")
      )

    /** Song contributors as JSON text; None when the audience may not see the song. */
    const findSongContributors = (songId: number, audience: Audience) =>
      contributorsById[audience](songId).pipe(
        Effect.orDie,
        withSpan("SongsRepo.findSongContributors")
      )

    /**
     * The browse's total from the kept counts of sql/0003 and 0006 when at most one filter is
     * given; undefined (count the matching rows) for combined filters.
     */
    const keptSongTotal = (browse: SongBrowse): Statement.Fragment | undefined => {
      const given = [browse.genre, browse.label, browse.year].filter((value) => value !== undefined).length
      if (given > 1) return undefined
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

    /** Browse of public songs. */
    const listSongs = (browse: SongBrowse, page: PageParamsInput) => {
      const sortName = browse.sort ?? "released"
      const order = browse.order ?? (sortName === "title" ? "asc" : "desc")
      const filters: Array<Statement.Fragment> = []
      if (browse.genre !== undefined) {
        // EXISTS with the genre's id as one value: the planner can start from a year's range and
        // probe each song's genres, instead of collecting every song of the genre (~0.5 s for pop+year)
        filters.push(sql`EXISTS (SELECT 1 FROM song_genres sg
                                 WHERE sg.song_id = s.id AND sg.genre_id = (SELECT id FROM genres WHERE slug = ${browse.genre}))`)
      }
      if (browse.label !== undefined) {
        filters.push(sql`EXISTS (SELECT 1 FROM song_labels sl WHERE sl.song_id = s.id AND sl.label_id = ${browse.label})`)
      }
      if (browse.year !== undefined) {
        filters.push(sql`s.released_at >= CAST(${`${browse.year}-01-01`} AS date)
                         AND s.released_at < CAST(${`${browse.year + 1}-01-01`} AS date)`)
      }
      const scope = `songs|${sortName}|${order}|g=${browse.genre ?? ""}|l=${browse.label ?? ""}|y=${browse.year ?? ""}`
      return keysetPage(songSort(sortName, order === "desc"), filters, page, scope, {
        total: keptSongTotal(browse)
      }).pipe(
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
