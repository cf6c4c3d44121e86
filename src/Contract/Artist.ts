/**
 * The artist Schemas: the summary (/v1/artists, search), the detail and the namesake hint; their
 * SQL: src/Shapes/Artist.ts. An artist reference inside another artist (members, member_of) is
 * `AlbumArtist` of ./Song.ts.
 */
import * as Schema from "effect/Schema"
import { AlbumArtist } from "./Song.js"

/** The summary's fields before `song_count`: the detail starts the same way. */
export const artistIdentityFields = {
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  prefix_title: Schema.NullOr(Schema.String).annotate({ description: "Honorific, e.g. Dato' Sri; or null." }),
  is_group: Schema.Boolean,
  avatar_url: Schema.String.annotate({ description: "Absolute URL; a placeholder when there is no avatar." })
}

export const SongCount = Schema.Int.annotate({ description: "Public songs with any credit of this artist." })

export const artistSummaryFields = {
  ...artistIdentityFields,
  song_count: SongCount
}

/** `{id, name, slug, prefix_title, is_group, avatar_url, song_count}`. */
export const ArtistSummary = Schema.Struct(artistSummaryFields).annotate({ identifier: "ArtistSummary" })
export type ArtistSummary = typeof ArtistSummary.Type

/** A role of an artist's credits: `{slug, title, count}`. */
export const ArtistRole = Schema.Struct({ slug: Schema.String, title: Schema.String, count: Schema.Int })

/** Artist detail: the summary plus namesake, profile, role and group facts. */
export const ArtistDetail = Schema.Struct({
  ...artistIdentityFields,
  disambiguator: Schema.NullOr(Schema.String).annotate({
    description: "The editor-supplied note that tells namesakes apart, or null."
  }),
  username: Schema.NullOr(Schema.String).annotate({
    description: "The artist's public member profile handle; null without a public profile."
  }),
  song_count: SongCount,
  album_count: Schema.Int.annotate({ description: "Public albums listed under /v1/artists/{artistId}/albums." }),
  roles: Schema.Array(ArtistRole).annotate({ description: "Roles credited on public songs, most public songs first." }),
  members: Schema.Array(AlbumArtist).annotate({ description: "A group's visible members, A-Z." }),
  member_of: Schema.Array(AlbumArtist).annotate({ description: "Visible groups the artist belongs to, A-Z." })
}).annotate({ identifier: "ArtistDetail" })
export type ArtistDetail = typeof ArtistDetail.Type

/** Namesake hint. */
export const NamesakeHint = Schema.Struct({
  id: Schema.Int,
  disambiguator: Schema.String.annotate({
    description: "The editor-supplied disambiguator, else one made of the role and best-known song."
  }),
  role: Schema.String.annotate({ description: "The artist's most-credited role on public songs." }),
  song: Schema.String.annotate({ description: "The artist's best-known public song (most vidsvc views)." }),
  song_year: Schema.Int.annotate({ description: "The release year of that song." })
}).annotate({ identifier: "NamesakeHint" })
export type NamesakeHint = typeof NamesakeHint.Type
