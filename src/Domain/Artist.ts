/**
 * The artist summary and the SQL that builds it: shown by /v1/artists and by search.
 * An artist reference inside another artist (members, member_of) is `AlbumArtist` of ./Song.ts.
 */
import * as Schema from "effect/Schema"
import { type FieldsSql, shape } from "./Shape.js"
import { PLACEHOLDER } from "./Song.js"

/** The summary's fields before `song_count`: the detail starts the same way. */
export const artistIdentityFields = {
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  prefix_title: Schema.NullOr(Schema.String).annotations({ description: "Honorific, e.g. Dato' Sri; or null." }),
  is_group: Schema.Boolean,
  avatar_url: Schema.String.annotations({ description: "Absolute URL; a placeholder when there is no avatar." })
}

export const SongCount = Schema.Int.annotations({ description: "Public songs with any credit of this artist." })

export const artistSummaryFields = {
  ...artistIdentityFields,
  song_count: SongCount
}

/** `{id, name, slug, prefix_title, is_group, avatar_url, song_count}`. */
export const ArtistSummary = Schema.Struct(artistSummaryFields).annotations({ identifier: "ArtistSummary" })
export type ArtistSummary = typeof ArtistSummary.Type

/** Public songs credited to artists row `a` in any role (public rows only), from sql/0008's kept counts. */
export const artistSongCountSql = (a: string) => `public_artist_song_count(${a}.id)`

/**
 * public_artists' rule for artists row `a`, from sql/0008's kept counts: a settled public song
 * (one probe by primary key: true for nearly every artist), a due one (a set of usually no rows,
 * built once), or a public album. Inline SQL, not a function: Postgres does not inline functions
 * with subqueries, and a call per row of a page 10,000 rows deep cost ~40 us a row; scalar
 * subqueries, so that the planner probes instead of hashing whole tables for deep pages.
 */
export const artistVisibleSql = (a: string) => `(
  (SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = ${a}.id) > 0
  OR ${a}.id IN (SELECT d.artist_id FROM due_artist_songs d)
  OR (SELECT true FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = ${a}.id LIMIT 1))`

/** The summary's fields before `song_count`, for artists row `a`: the detail starts the same way. */
export const artistIdentityFieldsSql = (a: string): FieldsSql<typeof artistIdentityFields> => ({
  id: `${a}.id`,
  name: `${a}.name`,
  slug: `${a}.slug`,
  prefix_title: `${a}.prefix_title`,
  is_group: `${a}.is_group`,
  avatar_url: `asset_url(${a}.avatar_key, '${PLACEHOLDER.avatar}')`
})

/** The artist summary for artists row `a`, with `songCount` an SQL expression. */
export const artistSummary = shape(
  ArtistSummary,
  (a: string, songCount: string = artistSongCountSql(a)) => ({ ...artistIdentityFieldsSql(a), song_count: songCount }),
  { from: "public_artists a", args: ["a"] }
)

// The fragments by their former names, for the groups that still import them (Search, Artists).
export const artistSummaryFieldsSql = artistSummary.fields
export const artistSummaryJsonSql = artistSummary.json
