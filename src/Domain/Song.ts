/**
 * The shared song and album shapes (song summary, extended song entry, list album entry) and the SQL that builds them.
 *
 * How to use it, from any group that shows songs or albums:
 * - Declare responses with the Schemas below (`SongSummary`, `ListSongEntry`, `AlbumSongEntry`,
 *   `ListAlbumEntry`, `AlbumArtist`); field order is the interface's.
 * - Build the JSON in Postgres with the fragments, interpolated into the `sql` template:
 *     sql`SELECT ${lit(jsonArraySql(songSummaryJsonSql("s"), "s.released_at DESC, s.id DESC"))}::text AS json
 *         FROM public_songs s WHERE ...`
 *   `songSummaryJsonSql("s")` is a compact JSON object (./JsonSql.ts) over a row of `songs` (or `public_songs`)
 *   named `s`; it reads credits/roles/artists itself. The alias must be a constant in the code,
 *   never request text: fragments are fixed SQL so that statement texts stay a bounded set.
 * - Visibility is the caller's: filter the song rows (public_songs for the public, songs for staff).
 * A public song's credited artists are visible by definition, so the fragment needs no filter.
 * - Absent images become placeholder URLs through asset_url(key, placeholder); use the
 *   `PLACEHOLDER` names so every group shows the same placeholders.
 */
import * as Schema from "effect/Schema"
import { jsonAggSql, type JsonFields, jsonArraySql, jsonObjectSql } from "./JsonSql.js"

/** Placeholder image names under `<CDN>/placeholders/<name>.png`. */
export const PLACEHOLDER = {
  songArtwork: "song-artwork",
  albumArtwork: "album-artwork",
  listArtwork: "list-artwork",
  avatar: "avatar",
  genreImage: "genre-image"
} as const

export const ArtworkSource = Schema.Literal("Custom", "StreamB", "StreamA", "VidSvc")
export const DateType = Schema.Literal("FULL", "MONTH", "YEAR")
export const AlbumType = Schema.Literal("album", "ep", "single")

/** `{id, name}`: a performing or writing credit in a song summary. */
export const ArtistName = Schema.Struct({ id: Schema.Int, name: Schema.String }).annotations({
  identifier: "ArtistName"
})

const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative())

/** The fields of the song summary, in the interface's order; the other song shapes extend them. */
const songSummaryFields = {
  id: Schema.Int,
  title: Schema.String,
  slug: Schema.String,
  released_at: Schema.String.annotations({ description: "YYYY-MM-DD." }),
  artwork_url: Schema.String.annotations({ description: "Absolute URL; a placeholder when there is no artwork." }),
  artwork_source: Schema.NullOr(ArtworkSource),
  vidsvc_video_id: Schema.NullOr(Schema.String),
  vidsvc_video_url: Schema.NullOr(Schema.String),
  vidsvc_views: Schema.NullOr(Schema.Int),
  vidsvc_views_per_day: Schema.NullOr(Schema.Int),
  artists: Schema.Array(ArtistName).annotations({ description: "Performing credits, in credit order." }),
  artwork_average: Schema.NullOr(Schema.String).annotations({ description: "#rrggbb, or null until computed." })
}

/** Song summary: a song in lists, similar songs, loves and contributions. */
export const SongSummary = Schema.Struct(songSummaryFields).annotations({ identifier: "SongSummary" })
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
  writers: Schema.Array(ArtistName).annotations({ description: "Writing credits, each artist once." })
}).annotations({ identifier: "ListSongEntry" })
export type ListSongEntry = typeof ListSongEntry.Type

/** Extended song entry inside an album: with the track `position`. */
export const AlbumSongEntry = Schema.Struct({
  ...extendedFields,
  position: Schema.Int.annotations({ description: "Track position." })
}).annotations({ identifier: "AlbumSongEntry" })
export type AlbumSongEntry = typeof AlbumSongEntry.Type

/** An album's artist with its avatar (album detail; avatar_url is a placeholder when absent). */
export const AlbumArtist = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  prefix_title: Schema.NullOr(Schema.String),
  is_group: Schema.Boolean,
  avatar_url: Schema.String
}).annotations({ identifier: "AlbumArtist" })

/** The artist of a list album entry, typed as the interface writes it (the service fills every value). */
export const ListAlbumArtist = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  prefix_title: Schema.NullOr(Schema.String),
  is_group: Schema.NullOr(Schema.Boolean),
  avatar_url: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ListAlbumArtist" })

/** List album entry: in curated lists, album browse lists and an artist's albums. */
export const ListAlbumEntry = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  album_type: AlbumType,
  artwork_url: Schema.NullOr(Schema.String),
  song_count: Schema.Int.annotations({ description: "Visible songs on the album." }),
  latest_released_at: Schema.NullOr(Schema.String).annotations({
    description: "Latest release date of the album's visible songs, else the album's own date (YYYY-MM-DD)."
  }),
  artists: Schema.Array(ListAlbumArtist).annotations({
    description: "Explicit album artists, or the performers of the album's visible songs."
  })
}).annotations({ identifier: "ListAlbumEntry" })
export type ListAlbumEntry = typeof ListAlbumEntry.Type

/** Sampled artwork colours: neutral grey until computed where the type has no null. */
export const ArtworkColors = Schema.Struct({ dominant: Schema.String, average: Schema.String }).annotations({
  identifier: "ArtworkColors"
})
export const artworkColorsJsonSql = (row: string) =>
  jsonObjectSql({
    dominant: `coalesce(${row}.artwork_dominant, '#808080')`,
    average: `coalesce(${row}.artwork_average, '#808080')`
  })

/** Which rows a query may show: the public's or staff's (every state). */
export type Audience = "public" | "staff"

// ---- SQL ---------------------------------------------------------------------------------

const VIDSVC_WATCH_URL = "https://www.vidsvc.example/watch?v="

/** `{id, name}` artists of song `s` whose role has `tag`, in credit order, each artist once. */
const creditedArtistsSql = (s: string, tag: "performer" | "writer") => `(
  SELECT ${jsonArraySql(jsonObjectSql({ id: "ca.id", name: "ca.name" }), "ca.first_position")}
  FROM (
    SELECT a.id, a.name, min(c.position) AS first_position
    FROM credits c JOIN roles r ON r.id = c.role_id JOIN artists a ON a.id = c.artist_id
    WHERE c.song_id = ${s}.id AND r.tag = '${tag}'
    GROUP BY a.id, a.name
  ) ca)`

/** The fields of the song summary for songs row `s`. */
export const songSummaryFieldsSql = (s: string): JsonFields => ({
  id: `${s}.id`,
  title: `${s}.title`,
  slug: `${s}.slug`,
  released_at: `iso_date(${s}.released_at)`,
  artwork_url: `asset_url(${s}.artwork_key, '${PLACEHOLDER.songArtwork}')`,
  artwork_source: `${s}.artwork_source`,
  vidsvc_video_id: `${s}.vidsvc_video_id`,
  vidsvc_video_url: `'${VIDSVC_WATCH_URL}' || ${s}.vidsvc_video_id`,
  vidsvc_views: `${s}.vidsvc_views`,
  vidsvc_views_per_day: `${s}.vidsvc_views_per_day`,
  artists: creditedArtistsSql(s, "performer"),
  artwork_average: `${s}.artwork_average`
})

const extendedFieldsSql = (s: string): JsonFields => ({
  ...songSummaryFieldsSql(s),
  date_type: `${s}.date_type`,
  duration_ms: `${s}.duration_ms`,
  vidsvc_duration_seconds: `${s}.vidsvc_duration_seconds`,
  streama_url: `${s}.streama_url`,
  streamb_url: `${s}.streamb_url`
})

/** Song summary as JSON for songs row `s`. */
export const songSummaryJsonSql = (s: string) => jsonObjectSql(songSummaryFieldsSql(s))

/** Staff entries end with the song's `status`; public ones have no such field. */
const statusFieldSql = (s: string, audience: Audience): JsonFields =>
  audience === "staff" ? { status: songStatusSql(s) } : {}

/** Extended song entry (curated list variant) as JSON for songs row `s`. */
export const listSongEntryJsonSql = (s: string, audience: Audience = "public") =>
  jsonObjectSql({
    ...extendedFieldsSql(s),
    writers: creditedArtistsSql(s, "writer"),
    ...statusFieldSql(s, audience)
  })

/** Extended song entry (album variant) as JSON for songs row `s` at track position `position` (an SQL expression). */
export const albumSongEntryJsonSql = (s: string, position: string, audience: Audience = "public") =>
  jsonObjectSql({ ...extendedFieldsSql(s), position, ...statusFieldSql(s, audience) })

/** `{id, name, prefix_title, is_group, avatar_url}` for artists row `a`. */
export const albumArtistJsonSql = (a: string) =>
  jsonObjectSql({
    id: `${a}.id`,
    name: `${a}.name`,
    prefix_title: `${a}.prefix_title`,
    is_group: `${a}.is_group`,
    avatar_url: `asset_url(${a}.avatar_key, '${PLACEHOLDER.avatar}')`
  })

/** The songs an audience may see: a view or table name, fixed text. */
export const songsOf = (audience: Audience) => (audience === "public" ? "public_songs" : "songs")

/** Staff see every state; each row says which. */
export const SongStatus = Schema.Literal("published", "unpublished", "deleted")
export const songStatusSql = (s: string) =>
  `CASE WHEN ${s}.deleted_at IS NOT NULL THEN 'deleted'
        WHEN ${s}.published_at IS NULL OR ${s}.published_at > now() THEN 'unpublished'
        ELSE 'published' END`

/**
 * The artists of albums row `al`: its explicit album artists in order, else the performers of
 * its visible songs (track order, then credit order, each artist once).
 */
export const albumArtistsJsonSql = (al: string, audience: Audience) => `coalesce(
  (SELECT ${jsonAggSql(albumArtistJsonSql("xa"), "aa.position")}
   FROM album_artists aa JOIN artists xa ON xa.id = aa.artist_id WHERE aa.album_id = ${al}.id),
  (SELECT ${jsonAggSql(albumArtistJsonSql("xa"), "ta.first_track, ta.first_credit")}
   FROM (
     SELECT c.artist_id, min(t.position) AS first_track, min(c.position) AS first_credit
     FROM album_tracks t
     JOIN ${songsOf(audience)} ts ON ts.id = t.song_id
     JOIN credits c ON c.song_id = ts.id
     JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
     WHERE t.album_id = ${al}.id
     GROUP BY c.artist_id
   ) ta JOIN artists xa ON xa.id = ta.artist_id),
  '[]'::json)`

/** Staff see albums and curated lists in every state; each says which. */
export const PublicationStatus = Schema.Literal("published", "unpublished")
export const publicationStatusSql = (row: string) =>
  `CASE WHEN ${row}.published_at IS NULL OR ${row}.published_at > now() THEN 'unpublished' ELSE 'published' END`

/**
 * List album entry as JSON for albums row `al`, counting the audience's songs.
 * Staff entries end with the album's `status`.
 */
export const listAlbumEntryFieldsSql = (al: string, audience: Audience): JsonFields => ({
    id: `${al}.id`,
    title: `${al}.title`,
    album_type: `${al}.album_type`,
    artwork_url: `CASE WHEN ${al}.artwork_key IS NULL OR ${al}.artwork_key = '' THEN NULL
                      ELSE asset_url(${al}.artwork_key, '${PLACEHOLDER.albumArtwork}') END`,
    song_count: `(SELECT count(*) FROM album_tracks t JOIN ${songsOf(audience)} ts ON ts.id = t.song_id
                 WHERE t.album_id = ${al}.id)`,
    latest_released_at: `iso_date(coalesce(
    (SELECT max(ts.released_at) FROM album_tracks t JOIN ${songsOf(audience)} ts ON ts.id = t.song_id
     WHERE t.album_id = ${al}.id),
    ${al}.released_at))`,
    artists: albumArtistsJsonSql(al, audience),
    ...(audience === "staff" ? { status: publicationStatusSql(al) } : {})
})

export const listAlbumEntryJsonSql = (al: string, audience: Audience) =>
  jsonObjectSql(listAlbumEntryFieldsSql(al, audience))
