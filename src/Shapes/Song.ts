/**
 * The SQL that builds the shared song and album shapes (Schemas: src/Contract/Song.ts).
 *
 * How to use it, from any group that shows songs or albums:
 * - Declare responses with the Schemas of src/Contract/Song.ts (`SongSummary`, `ListSongEntry`,
 *   `AlbumSongEntry`, `ListAlbumEntry`, `AlbumArtist`).
 * - Build the JSON in Postgres with the shapes (./Shape.ts), interpolated into the `sql` template:
 *     sql`SELECT ${lit(jsonArraySql(songSummary.json("s"), "s.released_at DESC, s.id DESC"))}::text AS json
 *         FROM public_songs s WHERE ...`
 *   `songSummary.json("s")` is a compact JSON object (./JsonSql.ts) over a row of `songs` (or `public_songs`)
 *   named `s`; it reads credits/roles/artists itself. The alias must be a constant in the code,
 *   never request text: fragments are fixed SQL so that statement texts stay a bounded set.
 * - Visibility is the caller's: filter the song rows (public_songs for the public, songs for staff);
 *   staff shapes end with the row's `status`.
 * A public song's credited artists are visible by definition, so the fragment needs no filter.
 * - Absent images become placeholder URLs through asset_url(key, placeholder); use the
 *   `PLACEHOLDER` names so every group shows the same placeholders.
 */
import {
  AlbumArtist,
  AlbumSongEntry,
  ArtistName,
  ArtworkColors,
  ListAlbumEntry,
  ListSongEntry,
  SongSummary,
  StaffAlbumSongEntry,
  StaffListAlbumEntry,
  StaffListSongEntry,
  StaffSongSummary
} from "../Contract/Song.js"
import { jsonAggSql, jsonArraySql } from "./JsonSql.js"
import { shape } from "./Shape.js"

/** Placeholder image names under `<CDN>/placeholders/<name>.png`. */
export const PLACEHOLDER = {
  songArtwork: "song-artwork",
  albumArtwork: "album-artwork",
  listArtwork: "list-artwork",
  avatar: "avatar",
  genreImage: "genre-image"
} as const

/** Which rows a query may show: the public's or staff's (every state). */
export type Audience = "public" | "staff"

const VIDSVC_WATCH_URL = "https://www.vidsvc.example/watch?v="

/** The songs an audience may see: a view or table name, fixed text. */
export const songSource = (audience: Audience) => (audience === "public" ? "public_songs" : "songs")

/**
 * Songs row `s` in each state staff filter by, as fixed SQL (a closed set: statement texts stay
 * bounded), by the public rule (song_is_public, sql/definitions/1_rules.sql: inlined by PostgreSQL).
 */
export const songStatusCondition = {
  published: "song_is_public(s.published_at, s.deleted_at)",
  unpublished: "s.deleted_at IS NULL AND song_is_public(s.published_at, s.deleted_at) IS NOT TRUE",
  deleted: "s.deleted_at IS NOT NULL",
  all: "TRUE"
} as const

export const songStatusSql = (s: string) =>
  `CASE WHEN ${s}.deleted_at IS NOT NULL THEN 'deleted'
        WHEN song_is_public(${s}.published_at, ${s}.deleted_at) THEN 'published'
        ELSE 'unpublished' END`

/** An album's or a list's status by its public rule (album_is_public, curated_list_is_public). */
export const publicationStatusSql = (row: string, isPublic: "album_is_public" | "curated_list_is_public") =>
  `CASE WHEN ${isPublic}(${row}.published_at) THEN 'published' ELSE 'unpublished' END`

export const artworkColors = shape(ArtworkColors, (row: string) => ({
  dominant: `coalesce(${row}.artwork_dominant, '#808080')`,
  average: `coalesce(${row}.artwork_average, '#808080')`
}), { from: "songs s", args: ["s"] })

export const artistName = shape(ArtistName, (a: string) => ({ id: `${a}.id`, name: `${a}.name` }), {
  from: "artists a",
  args: ["a"]
})

/** `{id, name}` artists of song `s` whose role has `tag`, in credit order, each artist once. */
const creditedArtistsSql = (s: string, tag: "performer" | "writer") => `(
  SELECT ${jsonArraySql(artistName.json("ca"), "ca.first_position")}
  FROM (
    SELECT a.id, a.name, min(c.position) AS first_position
    FROM credits c JOIN roles r ON r.id = c.role_id JOIN artists a ON a.id = c.artist_id
    WHERE c.song_id = ${s}.id AND r.tag = '${tag}'
    GROUP BY a.id, a.name
  ) ca)`

/** Song summary for songs row `s`. */
export const songSummary = shape(SongSummary, (s: string) => ({
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
}), { from: "public_songs s", args: ["s"] })

/**
 * The summary of the song with id `songId` (an SQL expression), one primary-key read: what a
 * list builds for its page's rows only, never for the rows an offset skips.
 */
export const songSummaryOf = (songId: string) =>
  `(SELECT ${songSummary.json("summarized")} FROM songs summarized WHERE summarized.id = ${songId})`

/** Staff song list entry for songs row `s`. */
export const staffSongSummary = shape(StaffSongSummary, (s: string) => ({
  ...songSummary.fields(s),
  status: songStatusSql(s),
  published_at: `iso_time(${s}.published_at)`,
  deleted_at: `iso_time(${s}.deleted_at)`
}), { from: "songs s", args: ["s"] })

const extendedFieldsSql = (s: string) => ({
  ...songSummary.fields(s),
  date_type: `${s}.date_type`,
  duration_ms: `${s}.duration_ms`,
  vidsvc_duration_seconds: `${s}.vidsvc_duration_seconds`,
  streama_url: `${s}.streama_url`,
  streamb_url: `${s}.streamb_url`
})

/** Extended song entry (curated list variant) for songs row `s`. */
export const listSongEntry = shape(ListSongEntry, (s: string) => ({
  ...extendedFieldsSql(s),
  writers: creditedArtistsSql(s, "writer")
}), { from: "public_songs s", args: ["s"] })

export const staffListSongEntry = shape(
  StaffListSongEntry,
  (s: string) => ({ ...listSongEntry.fields(s), status: songStatusSql(s) }),
  { from: "songs s", args: ["s"] },
  "StaffListSongEntry"
)

/** Extended song entry (album variant) for songs row `s` at track position `position` (an SQL expression). */
export const albumSongEntry = shape(
  AlbumSongEntry,
  (s: string, position: string) => ({ ...extendedFieldsSql(s), position }),
  { from: "album_tracks t JOIN public_songs s ON s.id = t.song_id", args: ["s", "t.position"] }
)

export const staffAlbumSongEntry = shape(
  StaffAlbumSongEntry,
  (s: string, position: string) => ({ ...albumSongEntry.fields(s, position), status: songStatusSql(s) }),
  { from: "album_tracks t JOIN songs s ON s.id = t.song_id", args: ["s", "t.position"] },
  "StaffAlbumSongEntry"
)

/** `{id, name, prefix_title, is_group, avatar_url}` for artists row `a`. */
export const albumArtist = shape(AlbumArtist, (a: string) => ({
  id: `${a}.id`,
  name: `${a}.name`,
  prefix_title: `${a}.prefix_title`,
  is_group: `${a}.is_group`,
  avatar_url: `asset_url(${a}.avatar_key, '${PLACEHOLDER.avatar}')`
}), { from: "artists a", args: ["a"] })

/**
 * The artists of albums row `al`: its explicit album artists in order, else the performers of
 * its visible songs (track order, then credit order, each artist once).
 */
export const albumArtistsJsonSql = (al: string, audience: Audience) => `coalesce(
  (SELECT ${jsonAggSql(albumArtist.json("xa"), "aa.position")}
   FROM album_artists aa JOIN artists xa ON xa.id = aa.artist_id WHERE aa.album_id = ${al}.id),
  (SELECT ${jsonAggSql(albumArtist.json("xa"), "ta.first_track, ta.first_credit")}
   FROM (
     SELECT c.artist_id, min(t.position) AS first_track, min(c.position) AS first_credit
     FROM album_tracks t
     JOIN ${songSource(audience)} ts ON ts.id = t.song_id
     JOIN credits c ON c.song_id = ts.id
     JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
     WHERE t.album_id = ${al}.id
     GROUP BY c.artist_id
   ) ta JOIN artists xa ON xa.id = ta.artist_id),
  '[]'::json)`

/** List album entry for albums row `al`, counting the audience's songs. */
export const listAlbumEntry = shape(ListAlbumEntry, (al: string, audience: Audience) => ({
    id: `${al}.id`,
    title: `${al}.title`,
    album_type: `${al}.album_type`,
    artwork_url: `CASE WHEN ${al}.artwork_key IS NULL OR ${al}.artwork_key = '' THEN NULL
                      ELSE asset_url(${al}.artwork_key, '${PLACEHOLDER.albumArtwork}') END`,
    song_count: `(SELECT count(*) FROM album_tracks t JOIN ${songSource(audience)} ts ON ts.id = t.song_id
                 WHERE t.album_id = ${al}.id)`,
    latest_released_at: `iso_date(coalesce(
    (SELECT max(ts.released_at) FROM album_tracks t JOIN ${songSource(audience)} ts ON ts.id = t.song_id
     WHERE t.album_id = ${al}.id),
    ${al}.released_at))`,
    artists: albumArtistsJsonSql(al, audience)
}), { from: "public_albums al", args: ["al", "public"] })

export const staffListAlbumEntry = shape(
  StaffListAlbumEntry,
  (al: string) => ({ ...listAlbumEntry.fields(al, "staff"), status: publicationStatusSql(al, "album_is_public") }),
  { from: "albums al", args: ["al"] },
  "StaffListAlbumEntry"
)

