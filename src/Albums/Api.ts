import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { AlbumDetail } from "../Contract/Album.js"
import { ChoiceParam, IdListParam, IdParam, MAX_BATCH_IDS, OrderParam, PageParams } from "../Contract/Params.js"
import { ListAlbumEntry } from "../Contract/Song.js"
import { detailEndpoint, listEndpoint } from "../Contract/Endpoints.js"

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
    listEndpoint("list", "/albums", AlbumBrowseParams, ListAlbumEntry, "AlbumList", "Browse published albums, EPs and singles")
  )
  .add(
    detailEndpoint("detail", "/albums/:albumId", AlbumPath, AlbumDetail, "AlbumDetailResponse", "One published album with its artists and songs in track order")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Albums") {}
