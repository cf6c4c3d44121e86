/**
 * The curated list Schemas: the list without its tracks (the /v1/curated-lists item, also in
 * search results and discovery), the list, and staff's list; their SQL: src/Shapes/CuratedList.ts.
 */
import * as Schema from "effect/Schema"
import {
  ArtworkColors,
  ListAlbumEntry,
  ListSongEntry,
  PublicationStatus,
  StaffListAlbumEntry,
  StaffListSongEntry
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
