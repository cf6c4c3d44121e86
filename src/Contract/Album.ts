/** The album detail Schemas (album entries of lists: ./Song.ts); their SQL: src/Shapes/Album.ts. */
import * as Schema from "effect/Schema"
import { AlbumArtist, AlbumSongEntry, AlbumType, ArtworkColors, PublicationStatus, StaffAlbumSongEntry } from "./Song.js"

/** Album detail: artwork_url and artwork_colors are never null. */
export const AlbumDetail = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  album_type: AlbumType,
  artwork_url: Schema.String,
  released_at: Schema.String.annotate({
    description: "YYYY-MM-DD; the earliest visible song's date when the album has none, else \"\"."
  }),
  artists: Schema.Array(AlbumArtist),
  songs: Schema.Array(AlbumSongEntry).annotate({ description: "Published, non-deleted songs in track order." }),
  artwork_colors: ArtworkColors
}).annotate({ identifier: "AlbumDetail" })
export type AlbumDetail = typeof AlbumDetail.Type

/** Album detail with every track, each marked with its status. */
export const StaffAlbumDetail = Schema.Struct({
  ...AlbumDetail.fields,
  songs: Schema.Array(StaffAlbumSongEntry),
  status: PublicationStatus
}).annotate({ identifier: "StaffAlbumDetail" })
