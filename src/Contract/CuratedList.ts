/**
 * The curated list shapes and the SQL that builds them: the list without its tracks (the
 * /v1/curated-lists item, also in search results and discovery), the list, and staff's list.
 */
import * as Schema from "effect/Schema"
import { albumSource } from "./Album.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { objectSql, shape } from "../Shapes/Shape.js"
import {
  ArtworkColors,
  type Audience,
  ListAlbumEntry,
  listAlbumEntry,
  ListSongEntry,
  listSongEntry,
  PLACEHOLDER,
  PublicationStatus,
  publicationStatusSql,
  songSource,
  StaffListAlbumEntry,
  staffListAlbumEntry,
  StaffListSongEntry,
  staffListSongEntry
} from "./Song.js"

export const ContentType = Schema.Literals(["songs", "albums"])

const listHeaderFields = {
  id: Schema.Int,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  artwork_url: Schema.NullOr(Schema.String).annotate({ description: "Absolute URL, or null without artwork." }),
  artwork_colors: Schema.NullOr(ArtworkColors).annotate({ description: "null until computed." }),
  updated_at: Schema.String.annotate({ description: "RFC 3339 UTC: when the list was last edited." })
}

/** Curated list: only the array of the list's content_type has rows. */
export const CuratedList = Schema.Struct({
  ...listHeaderFields,
  show_artists: Schema.Boolean,
  show_writers: Schema.Boolean,
  content_type: ContentType,
  songs: Schema.Array(ListSongEntry).annotate({ description: "Published, non-deleted songs in curated order." }),
  albums: Schema.Array(ListAlbumEntry).annotate({ description: "Published albums in curated order." })
}).annotate({ identifier: "CuratedList" })
export type CuratedList = typeof CuratedList.Type

/** A list without its tracks; item_count counts the visible entries of its content_type. */
export const CuratedListSummary = Schema.Struct({
  ...listHeaderFields,
  content_type: ContentType,
  item_count: Schema.Int
}).annotate({ identifier: "CuratedListSummary" })

/** Curated list with every entry, each marked with its status. */
export const StaffCuratedList = Schema.Struct({
  ...CuratedList.fields,
  songs: Schema.Array(StaffListSongEntry),
  albums: Schema.Array(StaffListAlbumEntry),
  status: PublicationStatus
}).annotate({ identifier: "StaffCuratedList" })

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
