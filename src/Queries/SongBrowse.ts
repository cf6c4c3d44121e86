import type * as SqlClient from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import { keysetPage } from "./Keyset.js"
import type { PageParamsInput } from "./Pagination.js"
import {
  ownSongSort,
  type SongOwner,
  songSort,
  songSortDescendingByDefault,
  type SongSortName,
  songSortSeekFunction
} from "./SongSorts.js"
import { steered } from "./SteeredPage.js"
import { unsafeFragment } from "../Database/SqlText.js"

const lit = unsafeFragment

/** A browse of public songs: its filters (an unknown genre slug matches nothing), sort and order. */
export interface SongBrowse {
  readonly genre?: string | undefined
  readonly label?: number | undefined
  readonly year?: number | undefined
  readonly sort?: SongSortName | undefined
  readonly order?: "asc" | "desc" | undefined
}

/** A year's first day, as a date parameter. */
const newYear = (sql: SqlClient.SqlClient, year: number) => sql`CAST(${`${year}-01-01`} AS date)`

/** `column` (a release date) within the year: a range of it. */
const releasedIn = (sql: SqlClient.SqlClient, column: string, year: number) =>
  sql`${lit(column)} >= ${newYear(sql, year)} AND ${lit(column)} < ${newYear(sql, year + 1)}`

/** The public songs released in the year, from per-date counts. */
const yearSongCount = (sql: SqlClient.SqlClient, year: number) =>
  sql`SELECT public_songs_released_between(${newYear(sql, year)}, ${newYear(sql, year + 1)})`

/** The genre's public songs (settled count and the due ones); an unknown slug has none. */
const genreSongCount = (sql: SqlClient.SqlClient, slug: string) =>
  sql`SELECT coalesce((SELECT public_genre_song_count(g.id) FROM genres g WHERE g.slug = ${slug}), 0)`

/** The label's public songs (settled count and the due ones). */
const labelSongCount = (sql: SqlClient.SqlClient, label: number) => sql`SELECT public_label_song_count(${label})`

/**
 * The browse's total from kept counts: one filter or none, two or three
 * from song_facet_counts. An unknown genre slug matches nothing.
 */
const keptSongTotal = (sql: SqlClient.SqlClient, browse: SongBrowse): Statement.Fragment => {
  const given = [browse.genre, browse.label, browse.year].filter((value) => value !== undefined).length
  if (given > 1) {
    const facets = (genre: Statement.Fragment) =>
      sql`public_song_facet_count(${genre}, CAST(${browse.label ?? null} AS integer), CAST(${browse.year ?? null} AS integer))`
    return browse.genre === undefined
      ? sql`SELECT ${facets(sql`NULL`)}`
      : sql`SELECT coalesce((SELECT ${facets(sql`g.id`)} FROM genres g WHERE g.slug = ${browse.genre}), 0)`
  }
  if (browse.genre !== undefined) {
    return genreSongCount(sql, browse.genre)
  }
  if (browse.label !== undefined) {
    return labelSongCount(sql, browse.label)
  }
  if (browse.year !== undefined) {
    return yearSongCount(sql, browse.year)
  }
  return sql`SELECT songs FROM public_catalogue_counts`
}

/**
 * Where an ascending walk of the public songs (without genre or label) reaches a position, from
 * kept counts: the sort's buckets, or in release order within a year its per-date
 * counts. None for popular and title order within a year.
 */
const songSeek = (sql: SqlClient.SqlClient, sortName: SongSortName, year: number | undefined) => {
  if (year === undefined) {
    return (position: Statement.Fragment) =>
      sql`SELECT bound_key AS key, bound_id AS tie, songs_before AS rows_before FROM ${lit(songSortSeekFunction[sortName])}(${position})`
  }
  return sortName !== "released" ? undefined : (position: Statement.Fragment) =>
    sql`SELECT released_at AS key, -2147483648 AS tie, songs_before AS rows_before FROM public_song_release_seek(
          ${newYear(sql, year)}, ${newYear(sql, year + 1)}, false, ${position})`
}

/**
 * One page of public songs with a browse's filters and sort: /v1/songs, and one genre's or
 * label's songs (/v1/genres/{slug}/songs, /v1/labels/{id}/songs: their own cursor scope and a
 * guard saying the owner exists). One statement, steered by the kept counts (SteeredPage.ts).
 */
export const songBrowsePage = (
  sql: SqlClient.SqlClient,
  browse: SongBrowse,
  page: PageParamsInput,
  list: { readonly scope?: string | undefined; readonly guard?: Statement.Fragment | undefined } = {}
) => {
  const sortName = browse.sort ?? "released"
  const descending = browse.order === undefined ? songSortDescendingByDefault[sortName] : browse.order === "desc"
  const order = descending ? "desc" : "asc"
  // a label's or genre's own kept order is the list's rows, walked as one index range of
  // it: the label's when both are given (the smaller); not the release order with a year (then the
  // year is the range of the catalogue's index)
  const ownOrder = (owner: SongOwner) =>
    sortName === "released" && browse.year !== undefined ? undefined : ownSongSort(owner, sortName, descending)
  const labelSort = browse.label === undefined ? undefined : ownOrder("label")
  const genreSort = browse.genre === undefined || browse.label !== undefined ? undefined : ownOrder("genre")
  const genreId = sql`(SELECT id FROM genres WHERE slug = ${browse.genre ?? ""})`
  // each filter as a join for collecting few matches, and as a probe (OFFSET 0) for walking in order
  const collect: Array<Statement.Fragment> = []
  const walk: Array<Statement.Fragment> = []
  const both = (filter: Statement.Fragment) => {
    collect.push(filter)
    walk.push(filter)
  }
  if (genreSort !== undefined) {
    both(sql`s.order_owner = ${genreId}`)
  } else if (browse.genre !== undefined) {
    // the genre's id as one value: the planner can start from a year's range and probe each song's genres
    collect.push(sql`EXISTS (SELECT 1 FROM song_genres sg WHERE sg.song_id = s.id AND sg.genre_id = ${genreId})`)
    walk.push(sql`EXISTS (SELECT 1 FROM song_genres sg WHERE sg.song_id = s.id AND sg.genre_id = ${genreId} OFFSET 0)`)
  }
  if (labelSort !== undefined) {
    both(sql`s.order_owner = ${browse.label}`)
  } else if (browse.label !== undefined) {
    collect.push(sql`EXISTS (SELECT 1 FROM song_labels sl WHERE sl.song_id = s.id AND sl.label_id = ${browse.label})`)
    walk.push(sql`EXISTS (SELECT 1 FROM song_labels sl WHERE sl.song_id = s.id AND sl.label_id = ${browse.label} OFFSET 0)`)
  }
  // a year is a range of an index in the catalogue's order: of the release dates, or alone (no
  // genre, no label) of year indexes in popular and title order. Its walk reads that
  // year's songs at most
  const yearIsRange = browse.year !== undefined &&
    (sortName === "released" || (browse.genre === undefined && browse.label === undefined))
  // with a year, its range (~25k songs at 1M) drives the collection (the genre and label probed):
  // a prepared statement's plan cannot tell a label of 90k songs from one of 500
  const collectYear = [...walk]
  if (browse.year !== undefined) {
    const year = releasedIn(sql, "s.released_at", browse.year)
    collectYear.push(year)
    // in an owner's order the walk tests the year on each row (IS TRUE: not a range the planner would start from)
    walk.push(
      !yearIsRange
        ? sql`(${year}) IS TRUE`
        : sortName === "released"
        ? year
        : sql`extract(year FROM s.released_at) = CAST(${browse.year} AS numeric)`
    )
  }
  const scope = list.scope ?? `songs|${sortName}|${order}|g=${browse.genre ?? ""}|l=${browse.label ?? ""}|y=${browse.year ?? ""}`
  const seek = browse.genre === undefined && browse.label === undefined ? songSeek(sql, sortName, browse.year) : undefined
  // the genre's and the label's link rows (with a year, its range of them: few matches
  // are read by key from the smaller when it is small; not for a genre and label without a year
  // (joining their two link ranges costs less); nor for an owner's own order alone (its walk reads
  // offset + limit of its rows: nothing reads fewer). With one filter the set is the list's matches:
  // its size is the total already read (and its rows are not tested again); with two or three,
  // the kept facet count of its range.
  const alone = [browse.genre, browse.label, browse.year].filter((value) => value !== undefined).length === 1
  const inYear = (link: string) =>
    browse.year === undefined ? lit("") : sql` AND ${releasedIn(sql, `${link}.released_at`, browse.year)}`
  const keptSize = (genre: Statement.Fragment, label: number | undefined) =>
    sql`SELECT public_song_facet_count(${genre}, CAST(${label ?? null} AS integer), CAST(${browse.year ?? null} AS integer))`
  const ownAlone = alone && (labelSort ?? genreSort) !== undefined
  const keys = ownAlone || (browse.year === undefined && browse.genre !== undefined && browse.label !== undefined) ? [] : [
    ...browse.genre === undefined ? [] : [{
      ids: sql`SELECT sg.song_id FROM song_genres sg WHERE sg.genre_id = ${genreId}${inYear("sg")}`,
      size: alone
        ? undefined
        : browse.year === undefined
        ? genreSongCount(sql, browse.genre)
        : keptSize(genreId, undefined)
    }],
    ...browse.label === undefined ? [] : [{
      ids: sql`SELECT sl.song_id FROM song_labels sl WHERE sl.label_id = ${browse.label}${inYear("sl")}`,
      size: alone
        ? undefined
        : browse.year === undefined
        ? labelSongCount(sql, browse.label)
        : keptSize(sql`NULL`, browse.label)
    }]
  ]
  const yearSongs = browse.year === undefined ? undefined : yearSongCount(sql, browse.year)
  // a year in its order's index is never collected by a scan (read by key from a small genre or label only)
  const steer = {
    collect: seek !== undefined || ownAlone || (yearIsRange && keys.length === 0) ? [] : browse.year !== undefined ? collectYear : collect,
    range: yearIsRange ? yearSongs : undefined,
    // a genre and a label without a year are collected by joining their two link ranges: a
    // prepared statement's generic plan reads both whole (it cannot tell which is small)
    scanned: browse.year !== undefined
      ? yearSongs
      : browse.genre !== undefined && browse.label !== undefined
      ? sql`SELECT (${genreSongCount(sql, browse.genre)}) + (${labelSongCount(sql, browse.label)})`
      : undefined,
    // the rows of the unfiltered walk: the owner's songs in its own order, else the catalogue's
    scale: labelSort !== undefined
      ? labelSongCount(sql, browse.label ?? 0)
      : genreSort !== undefined
      ? genreSongCount(sql, browse.genre ?? "")
      : sql`SELECT live_songs FROM catalogue_counts`,
    seek,
    keys
  }
  const sort = labelSort ?? genreSort ?? songSort(sortName, descending)
  return keysetPage(sort, walk, page, scope, { total: keptSongTotal(sql, browse), guard: list.guard, steer: steered(steer) })
}
