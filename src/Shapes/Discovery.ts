/** The SQL that builds the discovery shape (Schema: src/Contract/Discovery.ts). */
import { Discovery } from "../Contract/Discovery.js"
import { curatedListSummary } from "./CuratedList.js"
import { jsonArraySql } from "./JsonSql.js"
import { shape } from "./Shape.js"
import { songSummary } from "./Song.js"

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

