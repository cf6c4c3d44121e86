/** The SQL that builds the curated list shapes (Schemas: src/Contract/CuratedList.ts). */
import { CuratedList, CuratedListSummary, StaffCuratedList } from "../Contract/CuratedList.js"
import { ArtworkColors } from "../Contract/Song.js"
import { albumSource } from "./Album.js"
import { jsonArraySql } from "./JsonSql.js"
import { objectSql, shape } from "./Shape.js"
import {
  type Audience,
  listAlbumEntry,
  listSongEntry,
  PLACEHOLDER,
  publicationStatusSql,
  songSource,
  staffListAlbumEntry,
  staffListSongEntry
} from "./Song.js"

/** The lists an audience may see: a view or table name, fixed text. */
export const curatedListSource = (audience: Audience) => (audience === "public" ? "public_curated_lists" : "curated_lists")

/** id .. updated_at of a list row `l`: the head of both a list's detail and its summary. */
const curatedListHeaderFieldsSql = (l: string) => ({
  id: `${l}.id`,
  title: `${l}.title`,
  description: `${l}.description`,
  artwork_url: `CASE WHEN ${l}.artwork_key IS NULL OR ${l}.artwork_key = '' THEN NULL
                      ELSE asset_url(${l}.artwork_key, '${PLACEHOLDER.listArtwork}') END`,
  artwork_colors: `CASE WHEN ${l}.artwork_dominant IS NULL AND ${l}.artwork_average IS NULL THEN NULL
                         ELSE ${
    objectSql(ArtworkColors, {
      dominant: `coalesce(${l}.artwork_dominant, ${l}.artwork_average)`,
      average: `coalesce(${l}.artwork_average, ${l}.artwork_dominant)`
    })
  } END`,
  updated_at: `iso_time(${l}.updated_at)`
})

/** The public entries of list `l` of its content type. */
export const curatedListItemCountSql = (l: string) => `CASE WHEN ${l}.content_type = 'songs'
    THEN (SELECT count(*) FROM curated_list_songs e JOIN public_songs ts ON ts.id = e.song_id WHERE e.list_id = ${l}.id)
    ELSE (SELECT count(*) FROM curated_list_albums e JOIN public_albums xal ON xal.id = e.album_id WHERE e.list_id = ${l}.id)
  END`

/** The list summary of a public_curated_lists row `l`. */
export const curatedListSummary = shape(CuratedListSummary, (l: string) => ({
  ...curatedListHeaderFieldsSql(l),
  content_type: `${l}.content_type`,
  item_count: curatedListItemCountSql(l)
}), { from: "public_curated_lists l", args: ["l"] })

/**
 * The list of row `l`: the songs array holds rows only for `songs` lists, the albums array
 * only for `albums` lists; each entry `songEntry` of song `ts` or `albumEntry` of album `xal`.
 */
const curatedListFields = (l: string, audience: Audience, songEntry: string, albumEntry: string) => ({
  ...curatedListHeaderFieldsSql(l),
  show_artists: `${l}.show_artists`,
  show_writers: `${l}.show_writers`,
  content_type: `${l}.content_type`,
  songs: `CASE WHEN ${l}.content_type = 'songs' THEN (
      SELECT ${jsonArraySql(songEntry, "e.position")}
      FROM curated_list_songs e JOIN ${songSource(audience)} ts ON ts.id = e.song_id
      WHERE e.list_id = ${l}.id) ELSE '[]'::json END`,
  albums: `CASE WHEN ${l}.content_type = 'albums' THEN (
      SELECT ${jsonArraySql(albumEntry, "e.position")}
      FROM curated_list_albums e JOIN ${albumSource(audience)} xal ON xal.id = e.album_id
      WHERE e.list_id = ${l}.id) ELSE '[]'::json END`
})

export const curatedList = shape(
  CuratedList,
  (l: string) => curatedListFields(l, "public", listSongEntry.json("ts"), listAlbumEntry.json("xal", "public")),
  { from: "public_curated_lists l", args: ["l"] }
)

/** Staff's list: hidden lists and hidden entries, each marked with its `status`, the list's own at the end. */
export const staffCuratedList = shape(StaffCuratedList, (l: string) => ({
  ...curatedListFields(l, "staff", staffListSongEntry.json("ts"), staffListAlbumEntry.json("xal")),
  status: publicationStatusSql(l, "curated_list_is_public")
}), { from: "curated_lists l", args: ["l"] })

