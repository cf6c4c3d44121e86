/** The SQL that builds the catalogue statistics (Schemas: src/Contract/Stats.ts). */
import * as Schema from "effect/Schema"
import { CatalogueStats, RecentReleases, StaffStats } from "../Contract/Stats.js"
import { objectSql, shape } from "./Shape.js"
import { songStatusCondition } from "./Song.js"

/** Catalogue statistics over public rows only, for public_catalogue_totals row `pc`; kept counts. */
export const catalogueStats = shape(CatalogueStats, (pc: string) => ({
  songs: `${pc}.songs`,
  artists: `${pc}.artists`,
  contributors: `${pc}.contributors`,
  credits: `${pc}.credits`,
  earliest_year: `coalesce(
    (SELECT extract(year FROM min(released_at))::int FROM public_songs),
    extract(year FROM current_date)::int)`,
  genres: "(SELECT count(*) FROM genres)",
  labels: "(SELECT count(*) FROM labels)",
  recent_releases: objectSql(RecentReleases, {
    count: "public_songs_released_between(current_date - 29, current_date + 1)",
    released_from: "iso_date(current_date - 30)"
  })
}), { from: "public_catalogue_totals pc", args: ["pc"] })

/**
 * The hidden songs, counted in one pass over songs `s`: columns `unpublished` and `deleted`. A
 * statement of its own, run beside the catalogue statistics: those call a parallel-unsafe
 * function (public_songs_released_between), which would keep this scan of every song from
 * running in parallel if it were part of the same statement (~3x slower at 1M songs).
 */
export const hiddenSongCountsSql = `SELECT
    count(*) FILTER (WHERE ${songStatusCondition.unpublished})::int AS unpublished,
    count(*) FILTER (WHERE ${songStatusCondition.deleted})::int AS deleted
  FROM songs s`

const decodeCatalogueStats = Schema.decodeUnknownSync(Schema.fromJsonString(CatalogueStats))
const encodeStaffStats = Schema.encodeSync(Schema.fromJsonString(StaffStats))

/** Staff statistics: the catalogue statistics (JSON built by catalogueStats) plus the hidden songs. */
export const staffStatsJson = (catalogueStatsJson: string, hidden: { readonly unpublished: number; readonly deleted: number }) =>
  encodeStaffStats({
    ...decodeCatalogueStats(catalogueStatsJson),
    unpublished_songs: hidden.unpublished,
    deleted_songs: hidden.deleted
  })

