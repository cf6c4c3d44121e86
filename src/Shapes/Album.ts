/** The SQL that builds the album detail shapes (Schemas: src/Contract/Album.ts). */
import { AlbumDetail, StaffAlbumDetail } from "../Contract/Album.js"
import { jsonArraySql } from "./JsonSql.js"
import { shape } from "./Shape.js"
import {
  albumArtistsJsonSql,
  albumSongEntry,
  artworkColors,
  type Audience,
  PLACEHOLDER,
  publicationStatusSql,
  songSource,
  staffAlbumSongEntry
} from "./Song.js"

/** The albums an audience may see: a view or table name, fixed text. */
export const albumSource = (audience: Audience) => (audience === "public" ? "public_albums" : "albums")

/** The album detail of albums row `al`: the audience's songs, each as `entry` of song `ts` at track `t`. */
const albumDetailFields = (al: string, audience: Audience, entry: string) => ({
  id: `${al}.id`,
  title: `${al}.title`,
  album_type: `${al}.album_type`,
  artwork_url: `asset_url(${al}.artwork_key, '${PLACEHOLDER.albumArtwork}')`,
  released_at: `coalesce(iso_date(${al}.released_at),
      (SELECT iso_date(min(ts.released_at)) FROM album_tracks t JOIN ${songSource(audience)} ts ON ts.id = t.song_id
       WHERE t.album_id = ${al}.id), '')`,
  artists: albumArtistsJsonSql(al, audience),
  songs: `(
      SELECT ${jsonArraySql(entry, "t.position")}
      FROM album_tracks t JOIN ${songSource(audience)} ts ON ts.id = t.song_id
      WHERE t.album_id = ${al}.id)`,
  artwork_colors: artworkColors.json(al)
})

export const albumDetail = shape(
  AlbumDetail,
  (al: string) => albumDetailFields(al, "public", albumSongEntry.json("ts", "t.position")),
  { from: "public_albums al", args: ["al"] }
)

/** Staff's album detail: every album and every track, each song with its `status`, the album's at the end. */
export const staffAlbumDetail = shape(StaffAlbumDetail, (al: string) => ({
  ...albumDetailFields(al, "staff", staffAlbumSongEntry.json("ts", "t.position")),
  status: publicationStatusSql(al, "album_is_public")
}), { from: "albums al", args: ["al"] })

