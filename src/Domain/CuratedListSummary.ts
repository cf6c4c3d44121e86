/**
 * The SQL of a curated list without its tracks (the /v1/curated-lists item, schema
 * `CuratedListSummary` in src/CuratedLists/Api.ts), for the groups that show lists elsewhere:
 * the browse list, search results and discovery.
 */
import { type JsonFields, jsonObjectSql } from "./JsonSql.js"
import { PLACEHOLDER } from "./Song.js"

/** id .. updated_at of a list row `l`: the head of both a list's detail and its summary. */
export const curatedListHeaderFieldsSql = (l: string): JsonFields => ({
  id: `${l}.id`,
  title: `${l}.title`,
  description: `${l}.description`,
  artwork_url: `CASE WHEN ${l}.artwork_key IS NULL OR ${l}.artwork_key = '' THEN NULL
                      ELSE asset_url(${l}.artwork_key, '${PLACEHOLDER.listArtwork}') END`,
  artwork_colors: `CASE WHEN ${l}.artwork_dominant IS NULL AND ${l}.artwork_average IS NULL THEN NULL
                         ELSE ${
    jsonObjectSql({
      dominant: `coalesce(${l}.artwork_dominant, ${l}.artwork_average)`,
      average: `coalesce(${l}.artwork_average, ${l}.artwork_dominant)`
    })
  } END`,
  updated_at: `iso_time(${l}.updated_at)`
})

/** The fields of a list summary for a public_curated_lists row `l`. */
export const curatedListSummaryFieldsSql = (l: string): JsonFields => ({
  ...curatedListHeaderFieldsSql(l),
  content_type: `${l}.content_type`,
  item_count: curatedListItemCountSql(l)
})

/** The public entries of list `l` of its content type. */
export const curatedListItemCountSql = (l: string) => `CASE WHEN ${l}.content_type = 'songs'
    THEN (SELECT count(*) FROM curated_list_songs e JOIN public_songs ts ON ts.id = e.song_id WHERE e.list_id = ${l}.id)
    ELSE (SELECT count(*) FROM curated_list_albums e JOIN public_albums xal ON xal.id = e.album_id WHERE e.list_id = ${l}.id)
  END`

export const curatedListSummaryJsonSql = (l: string) => jsonObjectSql(curatedListSummaryFieldsSql(l))
