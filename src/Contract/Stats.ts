/** The catalogue statistics Schemas (/v1/stats, /v1/admin/stats); their SQL: src/Shapes/Stats.ts. */
import * as Schema from "effect/Schema"

export const RecentReleases = Schema.Struct({ count: Schema.Int, released_from: Schema.String })

/** Catalogue statistics. */
export const CatalogueStats = Schema.Struct({
  songs: Schema.Int,
  artists: Schema.Int,
  contributors: Schema.Int,
  credits: Schema.Int,
  earliest_year: Schema.Int,
  genres: Schema.Int,
  labels: Schema.Int,
  recent_releases: RecentReleases
}).annotate({ identifier: "CatalogueStats" })

export const StaffStats = Schema.Struct({
  ...CatalogueStats.fields,
  unpublished_songs: Schema.Int.annotate({ description: "Songs not yet published (none or a future date), not deleted." }),
  deleted_songs: Schema.Int
}).annotate({ identifier: "StaffStats" })
