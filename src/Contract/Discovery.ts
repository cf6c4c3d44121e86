/** The discovery shape and the SQL that builds it (/v1/discovery). */
import * as Schema from "effect/Schema"
import { CuratedListSummary, curatedListSummary } from "./CuratedList.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { shape } from "../Shapes/Shape.js"
import { SongSummary, songSummary } from "./Song.js"

/** Four selections, up to 12 each, the same all day (no randomness; cacheable). */
export const Discovery = Schema.Struct({
  new_releases: Schema.Array(SongSummary).annotate({
    description: "Songs released in the last 30 days (none in the future), newest first."
  }),
  trending: Schema.Array(SongSummary).annotate({ description: "Songs with the most vidsvc views per day." }),
  featured_lists: Schema.Array(CuratedListSummary).annotate({
    description: "Published curated lists, most recently updated first."
  }),
  on_this_day: Schema.Array(SongSummary).annotate({
    description: "Songs released on today's month and day in earlier years (exact dates only), most viewed first."
  })
}).annotate({ identifier: "Discovery" })
export type Discovery = typeof Discovery.Type

/** One selection of songs: the public songs rows `source` (a subquery) as summaries in `order` over `s`. */
export const discoverySongsSql = (source: string, order: string) =>
  `(SELECT ${jsonArraySql(songSummary.json("s"), order)} FROM ${source} s)`

/** One selection of lists: the public_curated_lists rows `source` (a subquery) as summaries in `order` over `l`. */
export const discoveryListsSql = (source: string, order: string) =>
  `(SELECT ${jsonArraySql(curatedListSummary.json("l"), order)} FROM ${source} l)`

/** Discovery from its four selections, each a JSON array SQL expression. */
export const discovery = shape(
  Discovery,
  (newReleases: string, trending: string, featuredLists: string, onThisDay: string) => ({
    new_releases: newReleases,
    trending,
    featured_lists: featuredLists,
    on_this_day: onThisDay
  }),
  {
    args: [
      discoverySongsSql("(SELECT * FROM public_songs ORDER BY id LIMIT 3)", "s.id"),
      discoverySongsSql("(SELECT * FROM public_songs ORDER BY id LIMIT 0)", "s.id"),
      discoveryListsSql("(SELECT * FROM public_curated_lists ORDER BY id LIMIT 2)", "l.id"),
      discoverySongsSql("(SELECT * FROM public_songs ORDER BY id DESC LIMIT 1)", "s.id")
    ]
  }
)
