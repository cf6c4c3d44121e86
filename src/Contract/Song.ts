/**
 * The shared song and album Schemas: song summary, extended song entries, list album entry, album
 * artist, statuses. Field order is the interface's. The SQL that builds each: src/Shapes/Song.ts.
 */
import * as Schema from "effect/Schema"

export const ArtworkSource = Schema.Literals(["Custom", "StreamB", "StreamA", "VidSvc"])
export const DateType = Schema.Literals(["FULL", "MONTH", "YEAR"])
export const AlbumType = Schema.Literals(["album", "ep", "single"])

/** `{id, name}`: a performing or writing credit in a song summary. */
export const ArtistName = Schema.Struct({ id: Schema.Int, name: Schema.String }).annotate({
  identifier: "ArtistName"
})

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** The fields of the song summary, in the interface's order; the other song shapes extend them. */
const songSummaryFields = {
  id: Schema.Int,
  title: Schema.String,
  slug: Schema.String,
  released_at: Schema.String.annotate({ description: "YYYY-MM-DD." }),
  artwork_url: Schema.String.annotate({ description: "Absolute URL; a placeholder when there is no artwork." }),
  artwork_source: Schema.NullOr(ArtworkSource),
  vidsvc_video_id: Schema.NullOr(Schema.String),
  vidsvc_video_url: Schema.NullOr(Schema.String),
  vidsvc_views: Schema.NullOr(Schema.Int),
  vidsvc_views_per_day: Schema.NullOr(Schema.Int),
  artists: Schema.Array(ArtistName).annotate({ description: "Performing credits, in credit order." }),
  artwork_average: Schema.NullOr(Schema.String).annotate({ description: "#rrggbb, or null until computed." })
}

/**
 * The ids other services gave a song, each a lookup parameter of /v1/songs (its name in the
 * song detail's `media`) and the column that holds it, unique among songs not deleted.
 */
export const SONG_EXTERNAL_IDS = {
  vidsvc_id: { column: "vidsvc_video_id", what: "Video ids (a song's media.vidsvc_id)" },
  streama_id: { column: "streama_id", what: "StreamA track ids (a song's media.streama_id)" },
  streamb_id: { column: "streamb_id", what: "StreamB track ids (a song's media.streamb_id)" }
} as const

/** Song summary: a song in lists, similar songs, loves and contributions. */
export const SongSummary = Schema.Struct(songSummaryFields).annotate({ identifier: "SongSummary" })
export type SongSummary = typeof SongSummary.Type

const extendedFields = {
  ...songSummaryFields,
  date_type: Schema.NullOr(DateType),
  duration_ms: Schema.NullOr(NonNegativeInt),
  vidsvc_duration_seconds: Schema.NullOr(NonNegativeInt),
  streama_url: Schema.NullOr(Schema.String),
  streamb_url: Schema.NullOr(Schema.String)
}

/** Extended song entry inside a curated list: with `writers` (composer and lyricist credits). */
export const ListSongEntry = Schema.Struct({
  ...extendedFields,
  writers: Schema.Array(ArtistName).annotate({ description: "Writing credits, each artist once." })
}).annotate({ identifier: "ListSongEntry" })
export type ListSongEntry = typeof ListSongEntry.Type

/** Extended song entry inside an album: with the track `position`. */
export const AlbumSongEntry = Schema.Struct({
  ...extendedFields,
  position: Schema.Int.annotate({ description: "Track position." })
}).annotate({ identifier: "AlbumSongEntry" })
export type AlbumSongEntry = typeof AlbumSongEntry.Type

/** An album's artist with its avatar (album detail; avatar_url is a placeholder when absent). */
export const AlbumArtist = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  prefix_title: Schema.NullOr(Schema.String),
  is_group: Schema.Boolean,
  avatar_url: Schema.String
}).annotate({ identifier: "AlbumArtist" })

/** The artist of a list album entry, typed as the interface writes it (the service fills every value). */
export const ListAlbumArtist = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  prefix_title: Schema.NullOr(Schema.String),
  is_group: Schema.NullOr(Schema.Boolean),
  avatar_url: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ListAlbumArtist" })

/** List album entry: in curated lists, album browse lists and an artist's albums. */
export const ListAlbumEntry = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  album_type: AlbumType,
  artwork_url: Schema.NullOr(Schema.String),
  song_count: Schema.Int.annotate({ description: "Visible songs on the album." }),
  latest_released_at: Schema.NullOr(Schema.String).annotate({
    description: "Latest release date of the album's visible songs, else the album's own date (YYYY-MM-DD)."
  }),
  artists: Schema.Array(ListAlbumArtist).annotate({
    description: "Explicit album artists, or the performers of the album's visible songs."
  })
}).annotate({ identifier: "ListAlbumEntry" })
export type ListAlbumEntry = typeof ListAlbumEntry.Type

/** Sampled artwork colours: neutral grey until computed where the type has no null. */
export const ArtworkColors = Schema.Struct({ dominant: Schema.String, average: Schema.String }).annotate({
  identifier: "ArtworkColors"
})

/** Staff see every state; each row says which. */
export const SongStatus = Schema.Literals(["published", "unpublished", "deleted"])

/** Staff see albums and curated lists in every state; each says which. */
export const PublicationStatus = Schema.Literals(["published", "unpublished"])

const Instant = Schema.NullOr(Schema.String).annotate({ description: "RFC 3339 UTC, or null." })

/** Where a song stands, on every staff song. */
export const songStateFields = {
  status: SongStatus,
  published_at: Instant.annotate({ description: "RFC 3339 UTC; null when never published (future dates: scheduled)." }),
  deleted_at: Instant
}

/** A song of the staff song list: the summary and where the song stands. */
export const StaffSongSummary = Schema.Struct({ ...SongSummary.fields, ...songStateFields }).annotate({
  identifier: "StaffSongSummary"
})

/** Entries of staff details, each marked with its status. */
export const StaffListSongEntry = Schema.Struct({ ...ListSongEntry.fields, status: SongStatus })
export const StaffAlbumSongEntry = Schema.Struct({ ...AlbumSongEntry.fields, status: SongStatus })
export const StaffListAlbumEntry = Schema.Struct({ ...ListAlbumEntry.fields, status: PublicationStatus })
