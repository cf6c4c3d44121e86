/** The song detail Schemas: /v1/songs/{id}, its similar songs, and staff's detail; their SQL: src/Shapes/SongDetail.ts. */
import * as Schema from "effect/Schema"
import { ArtworkColors, ArtworkSource, DateType, songStateFields, SongSummary } from "./Song.js"

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** Song detail `media`: absent text is "", absent durations 0, date_type defaults to FULL. */
export const SongMedia = Schema.Struct({
  vidsvc_id: Schema.String,
  streama_id: Schema.String,
  streamb_id: Schema.String,
  streama_url: Schema.String,
  streamb_url: Schema.String,
  date_type: DateType,
  duration_ms: NonNegativeInt
}).annotate({ identifier: "SongMedia" })

/** Song detail `vidsvc`: the video's figures as last fetched; 0 and "" when there is no video. */
export const SongVideoStats = Schema.Struct({
  duration_seconds: NonNegativeInt,
  views: NonNegativeInt,
  views_per_day: NonNegativeInt,
  likes: NonNegativeInt,
  last_fetched: Schema.String.annotate({ description: "RFC 3339 UTC, or \"\" when never fetched." })
}).annotate({ identifier: "SongVideoStats" })

export const RoleTag = Schema.Literals(["performer", "writer", "producer", "other"])

export const CreditArtist = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  is_group: Schema.Boolean,
  avatar_url: Schema.String,
  username: Schema.NullOr(Schema.String).annotate({ description: "null when the artist has no public member profile." })
})
export const CreditRole = Schema.Struct({ id: Schema.Int, title: Schema.String, slug: Schema.String, tag: RoleTag, order: Schema.Int })

/** One credit of the song detail: every credit of the song, in credit order. */
export const SongCredit = Schema.Struct({
  order: Schema.Int,
  artist: CreditArtist,
  role: CreditRole
}).annotate({ identifier: "SongCredit" })

export const SongGenre = Schema.Struct({ id: Schema.Int, slug: Schema.String, title: Schema.String })
export const SongLabel = Schema.Struct({ id: Schema.Int, name: Schema.String })

/** The song detail; absent values are filled (docs/api.md, Types and formats). */
export const SongDetail = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  slug: Schema.String,
  released_at: Schema.String,
  published_at: Schema.String,
  views: NonNegativeInt,
  claps: NonNegativeInt,
  love_count: NonNegativeInt,
  artwork_url: Schema.String,
  artwork_source: Schema.NullOr(ArtworkSource),
  notes: Schema.String,
  lyrics: Schema.String,
  media: SongMedia,
  vidsvc: SongVideoStats,
  credits: Schema.Array(SongCredit),
  genres: Schema.Array(SongGenre),
  labels: Schema.Array(SongLabel),
  artwork_colors: ArtworkColors,
  streama_popularity: NonNegativeInt,
  version_of: Schema.Array(SongSummary).annotate({ description: "Public songs this one is a version of." }),
  versions: Schema.Array(SongSummary).annotate({ description: "Public versions (covers, remixes, live) of this song." })
}).annotate({ identifier: "SongDetail" })
export type SongDetail = typeof SongDetail.Type

/** The song detail in any state, with where the song stands. */
export const StaffSongDetail = Schema.Struct({ ...SongDetail.fields, ...songStateFields }).annotate({
  identifier: "StaffSongDetail"
})

/** Similar songs: up to 10 each, public only, never the song itself, each song in one array. */
export const SimilarSongs = Schema.Struct({
  by_artist: Schema.Array(SongSummary),
  by_writers: Schema.Array(SongSummary),
  by_others: Schema.Array(SongSummary)
}).annotate({ identifier: "SimilarSongs" })
