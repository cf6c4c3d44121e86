import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { CheckedText, ChoiceParam, ExternalIdListParam, IdListParam, IdParam, MAX_BATCH_IDS, OrderParam, PageParams, wholeNumberText } from "../Contract/Params.js"
import { SongContributors } from "../Contract/Member.js"
import { SONG_EXTERNAL_IDS, SongSummary } from "../Contract/Song.js"
import { SimilarSongs, SongDetail } from "../Contract/SongDetail.js"
import { detailEndpoint, listEndpoint } from "../Contract/Endpoints.js"

export const SongPath = Schema.Struct({ songId: IdParam("songId") })

const YearParam = wholeNumberText("year", /^[12][0-9]{3}$/, 1000, 2999, {
  message: "year must be a four-digit year from 1000 to 2999.",
  description: "Only songs released in this year."
})

const GENRE_SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/

const GenreSlugParam = CheckedText(
  (text) =>
    !GENRE_SLUG.test(text)
      ? "genre must be a genre slug such as rock-kapak."
      : text.length > 100
      ? "genre must be a genre slug of at most 100 characters."
      : undefined,
  {
    type: "string",
    minLength: 1,
    maxLength: 100,
    pattern: "^[a-z0-9]+(-[a-z0-9]+)*$",
    description: "Only songs of this genre, by its slug (lower-case words joined by hyphens, e.g. rock-kapak)."
  },
  { kind: "pattern", pattern: /^[a-z0-9]{1,12}(-[a-z0-9]{1,12}){0,3}$/ }
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
  vidsvc_id: Schema.optional(ExternalIdListParam("vidsvc_id", MAX_BATCH_IDS, SONG_EXTERNAL_IDS.vidsvc_id.what)),
  streama_id: Schema.optional(ExternalIdListParam("streama_id", MAX_BATCH_IDS, SONG_EXTERNAL_IDS.streama_id.what)),
  streamb_id: Schema.optional(ExternalIdListParam("streamb_id", MAX_BATCH_IDS, SONG_EXTERNAL_IDS.streamb_id.what)),
  ...PageParams
})

export class SongsApi extends HttpApiGroup.make("Songs")
  .add(
    listEndpoint("list", "/songs", SongBrowseParams, SongSummary, "SongList", "Browse public songs by genre, label and year, or look songs up by id or external id")
  )
  .add(
    detailEndpoint("detail", "/songs/:songId", SongPath, SongDetail, "SongDetailResponse", "One published song with its credits, genres, labels and versions")
  )
  .add(
    detailEndpoint("similar", "/songs/:songId/similar", SongPath, SimilarSongs, "SimilarSongsResponse", "Songs sharing a performer, a writer or a genre")
  )
  .add(
    detailEndpoint("contributors", "/songs/:songId/contributors", SongPath, SongContributors, "SongContributorsResponse", "Who added and edited a song, and its history")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Songs") {}
