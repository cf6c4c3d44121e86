import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { AlbumDetail } from "../Domain/Album.js"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { MAX_BATCH_IDS } from "../Domain/Batch.js"
import { ChoiceParam, IdListParam, IdParam, OrderParam, PageParams } from "../Domain/Params.js"
import { ListAlbumEntry } from "../Domain/Song.js"

export const AlbumPath = Schema.Struct({ albumId: IdParam("albumId") })

export const AlbumSort = ChoiceParam("sort", "released", "title")

/** Browse: `type` subset; sort released (newest first) or title (A-Z); `order` flips. */
export const AlbumBrowseParams = Schema.Struct({
  type: Schema.optional(ChoiceParam("type", "album", "ep", "single")),
  sort: Schema.optional(AlbumSort),
  order: Schema.optional(OrderParam),
  ids: Schema.optional(IdListParam(MAX_BATCH_IDS)),
  ...PageParams
})

export class AlbumsApi extends HttpApiGroup.make("Albums")
  .add(
    HttpApiEndpoint.get("list", "/albums")
      .setUrlParams(AlbumBrowseParams)
      .addSuccess(ListEnvelope(ListAlbumEntry, "AlbumList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "Browse published albums, EPs and singles")
  )
  .add(
    HttpApiEndpoint.get("detail", "/albums/:albumId")
      .setPath(AlbumPath)
      .addSuccess(DetailEnvelope(AlbumDetail, "AlbumDetailResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "One published album with its artists and songs in track order")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Albums") {}
