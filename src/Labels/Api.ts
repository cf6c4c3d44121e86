import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, IdParam, OrderParam, PageParams } from "../Domain/Params.js"
import { Label } from "../Domain/Label.js"
import { SearchTextParam } from "../Domain/SearchText.js"
import { SongSummary } from "../Domain/Song.js"

/** The sorts of a song list inside a label or genre. */
export const SongListSort = ChoiceParam("sort", "released", "popular", "title")

export const SongListParams = Schema.Struct({
  sort: Schema.optional(SongListSort).annotations({
    description: "`released` (newest first, default), `popular` (most views first) or `title` (A-Z)."
  }),
  ...PageParams
})

export const LabelsListParams = Schema.Struct({
  q: Schema.optional(SearchTextParam),
  sort: Schema.optional(ChoiceParam("sort", "name", "total_songs", "album_count")),
  order: Schema.optional(OrderParam),
  ...PageParams
})

const byLabelId = Schema.Struct({ labelId: IdParam("labelId") })

export class LabelsApi extends HttpApiGroup.make("Labels")
  .add(
    HttpApiEndpoint.get("list", "/labels")
      .setUrlParams(LabelsListParams)
      .addSuccess(ListEnvelope(Label, "LabelList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "Labels, most public songs first")
      .annotate(
        OpenApi.Description,
        "`q` matches current and former names; `sort` is `total_songs` (default), `album_count` or `name`; " +
          "`order` defaults to `desc` for the counts and `asc` for the name."
      )
  )
  .add(
    HttpApiEndpoint.get("detail", "/labels/:labelId")
      .setPath(byLabelId)
      .addSuccess(DetailEnvelope(Label, "LabelResponse"))
      .addError(BadRequestError)
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "One label")
  )
  .add(
    HttpApiEndpoint.get("songs", "/labels/:labelId/songs")
      .setPath(byLabelId)
      .setUrlParams(SongListParams)
      .addSuccess(ListEnvelope(SongSummary, "LabelSongList"))
      .addError(BadRequestError)
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "A label's public songs, newest first")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Labels") {}
