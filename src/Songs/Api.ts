import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, IdParam, OrderParam, PageParams, IdListParam } from "../Domain/Params.js"
import { MAX_BATCH_IDS } from "../Domain/Batch.js"
import { ArtworkColors, ArtworkSource, DateType, SongSummary } from "../Domain/Song.js"

const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative())

/** Song detail `media`: absent text is "", absent durations 0, date_type defaults to FULL. */
export const SongMedia = Schema.Struct({
  vidsvc_id: Schema.String,
  streama_id: Schema.String,
  streamb_id: Schema.String,
  streama_url: Schema.String,
  streamb_url: Schema.String,
  date_type: DateType,
  duration_ms: NonNegativeInt
}).annotations({ identifier: "SongMedia" })

/** Song detail `vidsvc`: the video's figures as last fetched; 0 and "" when there is no video. */
export const SongVideoStats = Schema.Struct({
  duration_seconds: NonNegativeInt,
  views: NonNegativeInt,
  views_per_day: NonNegativeInt,
  likes: NonNegativeInt,
  last_fetched: Schema.String.annotations({ description: "RFC 3339 UTC, or \"\" when never fetched." })
}).annotations({ identifier: "SongVideoStats" })

export const RoleTag = Schema.Literal("performer", "writer", "producer", "other")

/** One credit of the song detail: every credit of the song, in credit order. */
export const SongCredit = Schema.Struct({
  order: Schema.Int,
  artist: Schema.Struct({
    id: Schema.Int,
    name: Schema.String,
    is_group: Schema.Boolean,
    avatar_url: Schema.String,
    username: Schema.NullOr(Schema.String).annotations({ description: "null when the artist has no public member profile." })
  }),
  role: Schema.Struct({ id: Schema.Int, title: Schema.String, slug: Schema.String, tag: RoleTag, order: Schema.Int })
}).annotations({ identifier: "SongCredit" })

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
  genres: Schema.Array(Schema.Struct({ id: Schema.Int, slug: Schema.String, title: Schema.String })),
  labels: Schema.Array(Schema.Struct({ id: Schema.Int, name: Schema.String })),
  artwork_colors: ArtworkColors,
  streama_popularity: NonNegativeInt,
  version_of: Schema.Array(SongSummary).annotations({ description: "Public songs this one is a version of." }),
  versions: Schema.Array(SongSummary).annotations({ description: "Public versions (covers, remixes, live) of this song." })
}).annotations({ identifier: "SongDetail" })
export type SongDetail = typeof SongDetail.Type

/** Similar songs: up to 10 each, public only, never the song itself, each song in one array. */
export const SimilarSongs = Schema.Struct({
  by_artist: Schema.Array(SongSummary),
  by_writers: Schema.Array(SongSummary),
  by_others: Schema.Array(SongSummary)
}).annotations({ identifier: "SimilarSongs" })

/** A member as history shows them; banned or handle-less members are "Former member". */
export const UserRef = Schema.Struct({
  username: Schema.String,
  name: Schema.String,
  avatar_url: Schema.String
}).annotations({ identifier: "UserRef" })

/** Song contributors. */
export const SongContributors = Schema.Struct({
  song_id: Schema.Int,
  added_by: UserRef,
  edited_by: UserRef,
  contributions: Schema.Array(
    Schema.Struct({ action: Schema.Literal("add", "edit"), action_at: Schema.String, user: UserRef })
  ).annotations({ description: "The song's add and edit history, newest first." })
}).annotations({ identifier: "SongContributors" })

export const SongPath = Schema.Struct({ songId: IdParam("songId") })

const YearParam = Schema.String.pipe(
  Schema.pattern(/^[12][0-9]{3}$/, { message: () => "year must be a four-digit year from 1000 to 2999." }),
  Schema.compose(Schema.NumberFromString),
  Schema.annotations({
    message: () => "year must be a four-digit year from 1000 to 2999.",
    jsonSchema: { type: "integer", minimum: 1000, maximum: 2999, description: "Only songs released in this year." },
    arbitrary: () => (fc) => fc.integer({ min: 1000, max: 2999 })
  })
)

const GenreSlugParam = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: () => "genre must be a genre slug such as rock-kapak." }),
  Schema.maxLength(100, { message: () => "genre must be a genre slug of at most 100 characters." }),
  Schema.annotations({
    message: () => "genre must be a genre slug such as rock-kapak.",
    jsonSchema: {
      type: "string",
      minLength: 1,
      maxLength: 100,
      pattern: "^[a-z0-9]+(-[a-z0-9]+)*$",
      description: "Only songs of this genre, by its slug (lower-case words joined by hyphens, e.g. rock-kapak)."
    },
    arbitrary: () => (fc) => fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,12}){0,3}$/)
  })
)

export const SongSort = ChoiceParam("sort", "released", "popular", "title")

/** Browse: filters, sort and order (default: released newest first, popular most first, title A-Z). */
export const SongBrowseParams = Schema.Struct({
  genre: Schema.optional(GenreSlugParam),
  label: Schema.optional(IdParam("label", "Only songs on this label, by its id.")),
  year: Schema.optional(YearParam),
  sort: Schema.optional(SongSort),
  order: Schema.optional(OrderParam),
  ids: Schema.optional(IdListParam(MAX_BATCH_IDS)),
  ...PageParams
})

export class SongsApi extends HttpApiGroup.make("Songs")
  .add(
    HttpApiEndpoint.get("list", "/songs")
      .setUrlParams(SongBrowseParams)
      .addSuccess(ListEnvelope(SongSummary, "SongList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "Browse public songs by genre, label and year")
  )
  .add(
    HttpApiEndpoint.get("detail", "/songs/:songId")
      .setPath(SongPath)
      .addSuccess(DetailEnvelope(SongDetail, "SongDetailResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "One published song with its credits, genres, labels and versions")
  )
  .add(
    HttpApiEndpoint.get("similar", "/songs/:songId/similar")
      .setPath(SongPath)
      .addSuccess(DetailEnvelope(SimilarSongs, "SimilarSongsResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "Songs sharing a performer, a writer or a genre")
  )
  .add(
    HttpApiEndpoint.get("contributors", "/songs/:songId/contributors")
      .setPath(SongPath)
      .addSuccess(DetailEnvelope(SongContributors, "SongContributorsResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "Who added and edited a song, and its history")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Songs") {}
