import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequestError } from "../Contract/Errors.js"
import { ChoiceParam, DescribedChoiceParam, IdParam, OrderParam, PageParams } from "../Contract/Params.js"
import { Label } from "../Contract/Label.js"
import { SearchTextParam } from "../Contract/SearchText.js"
import { SongSummary } from "../Contract/Song.js"
import { detailEndpoint, listEndpoint, ownedListEndpoint } from "../Contract/Endpoints.js"

/** The sorts of a song list inside a label or genre. */
export const SongListSort = ChoiceParam("sort", "released", "popular", "title")

export const SongListParams = Schema.Struct({
  sort: Schema.optional(DescribedChoiceParam(
    "sort",
    "`released` (newest first, default), `popular` (most views first) or `title` (A-Z).",
    "released",
    "popular",
    "title"
  )),
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
    listEndpoint("list", "/labels", LabelsListParams, Label, "LabelList", "Labels, most public songs first")
      .annotate(
        OpenApi.Description,
        "`q` matches current and former names; `sort` is `total_songs` (default), `album_count` or `name`; " +
          "`order` defaults to `desc` for the counts and `asc` for the name."
      )
  )
  .add(
    detailEndpoint("detail", "/labels/:labelId", byLabelId, Label, "LabelResponse", "One label", [BadRequestError])
  )
  .add(
    ownedListEndpoint("songs", "/labels/:labelId/songs", { path: byLabelId, query: SongListParams }, SongSummary, "LabelSongList", "A label's public songs, newest first")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Labels") {}
