/** The SQL that builds the artist shapes (Schemas: src/Contract/Artist.ts). */
import { ArtistDetail, artistIdentityFields, ArtistRole, ArtistSummary, NamesakeHint } from "../Contract/Artist.js"
import { jsonArraySql } from "./JsonSql.js"
import { type FieldsSql, objectSql, shape } from "./Shape.js"
import { albumArtist, PLACEHOLDER } from "./Song.js"

/** Public songs credited to artists row `a` in any role (public rows only), from kept counts. */
export const artistSongCountSql = (a: string) => `public_artist_song_count(${a}.id)`

/** An artist's settled public songs, kept count for artists row `a`: one probe by primary key, 0 when none. */
export const artistSettledSongsSql = (a: string) =>
  `coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = ${a}.id), 0)`

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

/**
 * The detail of public_artists row `a`. `albumCount`: an SQL expression (the caller knows the
 * artist's albums). Roles are kept per role, not counted over the artist's credits.
 */
export const artistDetail = shape(ArtistDetail, (a: string, albumCount: string) => ({
  ...artistIdentityFieldsSql(a),
  disambiguator: `nullif(btrim(${a}.disambiguator), '')`,
  username: `(SELECT m.username FROM public_members m WHERE m.id = ${a}.member_id)`,
  song_count: artistSongCountSql(a),
  album_count: albumCount,
  roles: `(
    SELECT ${jsonArraySql(objectSql(ArtistRole, { slug: "r.slug", title: "r.title", count: "rc.songs" }), "rc.songs DESC, r.sort_order, r.id")}
    FROM public_artist_role_song_counts(${a}.id) rc JOIN roles r ON r.id = rc.role_id)`,
  members: `(
    SELECT ${jsonArraySql(albumArtist.json("ma"), "lower(ma.name), ma.id")}
    FROM artist_memberships am JOIN public_artists ma ON ma.id = am.member_id WHERE am.group_id = ${a}.id)`,
  member_of: `(
    SELECT ${jsonArraySql(albumArtist.json("ga"), "lower(ga.name), ga.id")}
    FROM artist_memberships am JOIN public_artists ga ON ga.id = am.group_id WHERE am.member_id = ${a}.id)`
}), { from: "public_artists a", args: ["a", "0"] })

/** A namesake hint for row `h` of the hints query (src/Artists/Repo.ts). */
export const namesakeHint = shape(NamesakeHint, (h: string) => ({
  id: `${h}.id`,
  disambiguator: `coalesce(nullif(btrim(${h}.disambiguator), ''),
      ${h}.role || ', ' || ${h}.song || CASE WHEN ${h}.song_year > 0 THEN ' (' || ${h}.song_year || ')' ELSE '' END)`,
  role: `${h}.role`,
  song: `${h}.song`,
  song_year: `${h}.song_year`
}), { from: "(SELECT 1 AS id, NULL::text AS disambiguator, 'Penyanyi' AS role, 'Lagu' AS song, 2020 AS song_year) h", args: ["h"] })

