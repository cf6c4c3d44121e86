import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, IdParam, OrderParam, PageParams, IdListParam } from "../Domain/Params.js"
import { MAX_BATCH_IDS } from "../Domain/Batch.js"
import { SongContributors } from "../Domain/Member.js"
import { SongSummary } from "../Domain/Song.js"
import { SimilarSongs, SongDetail } from "../Domain/SongDetail.js"

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
