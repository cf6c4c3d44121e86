/** The SQL that builds the song detail shapes (Schemas: src/Contract/SongDetail.ts). */
import {
  CreditArtist,
  CreditRole,
  SimilarSongs,
  SongCredit,
  SongDetail,
  SongGenre,
  SongLabel,
  SongMedia,
  SongVideoStats,
  StaffSongDetail
} from "../Contract/SongDetail.js"
import { jsonArraySql } from "./JsonSql.js"
import { objectSql, shape } from "./Shape.js"
import { artworkColors, type Audience, PLACEHOLDER, songSource, songStatusSql, songSummary } from "./Song.js"

export const songMedia = shape(SongMedia, (s: string) => ({
  vidsvc_id: `coalesce(${s}.vidsvc_video_id, '')`,
  streama_id: `coalesce(${s}.streama_id, '')`,
  streamb_id: `coalesce(${s}.streamb_id, '')`,
  streama_url: `coalesce(${s}.streama_url, '')`,
  streamb_url: `coalesce(${s}.streamb_url, '')`,
  date_type: `coalesce(${s}.date_type, 'FULL')`,
  duration_ms: `coalesce(${s}.duration_ms, 0)`
}), { from: "public_songs s", args: ["s"] })

export const songVideoStats = shape(SongVideoStats, (s: string) => ({
  duration_seconds: `coalesce(${s}.vidsvc_duration_seconds, 0)`,
  views: `coalesce(${s}.vidsvc_views, 0)`,
  views_per_day: `coalesce(${s}.vidsvc_views_per_day, 0)`,
  likes: `coalesce(${s}.vidsvc_likes, 0)`,
  last_fetched: `coalesce(iso_time(${s}.vidsvc_last_fetched), '')`
}), { from: "public_songs s", args: ["s"] })

/** A credit for credits row `c` of artist `a` (with public member `m`, or none) in role `r`. */
export const songCredit = shape(SongCredit, (c: string, a: string, m: string, r: string) => ({
  order: `${c}.position`,
  artist: objectSql(CreditArtist, {
    id: `${a}.id`,
    name: `${a}.name`,
    is_group: `${a}.is_group`,
    avatar_url: `asset_url(${a}.avatar_key, '${PLACEHOLDER.avatar}')`,
    username: `${m}.username`
  }),
  role: objectSql(CreditRole, { id: `${r}.id`, title: `${r}.title`, slug: `${r}.slug`, tag: `${r}.tag`, order: `${r}.sort_order` })
}), {
  from: "credits c JOIN artists a ON a.id = c.artist_id JOIN roles r ON r.id = c.role_id LEFT JOIN public_members m ON m.id = a.member_id",
  args: ["c", "a", "m", "r"]
})

/** Song summaries of the audience's songs related to song `s` through song_versions. */
const versionsSql = (s: string, audience: Audience, mine: "song_id" | "original_song_id", theirs: "song_id" | "original_song_id") => `(
  SELECT ${jsonArraySql(songSummary.json("vs"), "vs.released_at, vs.id")}
  FROM song_versions v JOIN ${songSource(audience)} vs ON vs.id = v.${theirs}
  WHERE v.${mine} = ${s}.id)`

/** The song detail of songs row `s`, its versions the audience's. */
export const songDetail = shape(SongDetail, (s: string, audience: Audience) => ({
  id: `${s}.id`,
  title: `${s}.title`,
  slug: `${s}.slug`,
  released_at: `iso_date(${s}.released_at)`,
  published_at: `iso_time(${s}.published_at)`,
  views: `${s}.views`,
  claps: `${s}.claps`,
  love_count: `(SELECT count(*) FROM loves l JOIN public_members m ON m.id = l.member_id WHERE l.song_id = ${s}.id)`,
  artwork_url: `asset_url(${s}.artwork_key, '${PLACEHOLDER.songArtwork}')`,
  artwork_source: `${s}.artwork_source`,
  notes: `coalesce(${s}.notes, '')`,
  lyrics: `coalesce(${s}.lyrics, '')`,
  media: songMedia.json(s),
  vidsvc: songVideoStats.json(s),
  credits: `(
      SELECT ${jsonArraySql(songCredit.json("c", "a", "m", "r"), "c.position")}
      FROM credits c
      JOIN artists a ON a.id = c.artist_id
      JOIN roles r ON r.id = c.role_id
      LEFT JOIN public_members m ON m.id = a.member_id
      WHERE c.song_id = ${s}.id)`,
  genres: `(
      SELECT ${jsonArraySql(objectSql(SongGenre, { id: "g.id", slug: "g.slug", title: "g.title" }), "g.title, g.id")}
      FROM song_genres sg JOIN genres g ON g.id = sg.genre_id WHERE sg.song_id = ${s}.id)`,
  labels: `(
      SELECT ${jsonArraySql(objectSql(SongLabel, { id: "lb.id", name: "lb.name" }), "lb.name, lb.id")}
      FROM song_labels sl JOIN labels lb ON lb.id = sl.label_id WHERE sl.song_id = ${s}.id)`,
  artwork_colors: artworkColors.json(s),
  streama_popularity: `coalesce(${s}.streama_popularity, 0)`,
  version_of: versionsSql(s, audience, "song_id", "original_song_id"),
  versions: versionsSql(s, audience, "original_song_id", "song_id")
}), { from: "public_songs s", args: ["s", "public"] })

/** Staff's song detail of songs row `s`: any state; `published_at` is null while never published. */
export const staffSongDetail = shape(StaffSongDetail, (s: string) => ({
  ...songDetail.fields(s, "staff"),
  status: songStatusSql(s),
  deleted_at: `iso_time(${s}.deleted_at)`
}), { from: "songs s", args: ["s"] })

/** The order of each similar-songs array: most watched per day first. */
export const SIMILAR_ORDER = "s.vidsvc_views_per_day DESC NULLS LAST, s.id DESC"

/** Similar songs from three sets of public songs rows (each a table, CTE or subquery name). */
export const similarSongs = shape(SimilarSongs, (byArtist: string, byWriters: string, byOthers: string) => ({
  by_artist: `(SELECT ${jsonArraySql(songSummary.json("s"), SIMILAR_ORDER)} FROM ${byArtist} s)`,
  by_writers: `(SELECT ${jsonArraySql(songSummary.json("s"), SIMILAR_ORDER)} FROM ${byWriters} s)`,
  by_others: `(SELECT ${jsonArraySql(songSummary.json("s"), SIMILAR_ORDER)} FROM ${byOthers} s)`
}), {
  args: [
    "(SELECT * FROM public_songs ORDER BY id LIMIT 2)",
    "(SELECT * FROM public_songs ORDER BY id LIMIT 0)",
    "(SELECT * FROM public_songs ORDER BY id DESC LIMIT 3)"
  ]
})

