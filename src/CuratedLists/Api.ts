import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { CuratedList, CuratedListSummary } from "../Contract/CuratedList.js"
import { IdParam, PageParams } from "../Contract/Params.js"
import { detailEndpoint, listEndpoint } from "../Contract/Endpoints.js"

export const ListPath = Schema.Struct({ listId: IdParam("listId") })

export class CuratedListsApi extends HttpApiGroup.make("CuratedLists")
  .add(
    listEndpoint("list", "/curated-lists", Schema.Struct(PageParams), CuratedListSummary, "CuratedListList", "Published curated lists, most recently updated first")
  )
  .add(
    detailEndpoint("detail", "/curated-lists/:listId", ListPath, CuratedList, "CuratedListResponse", "One published curated list with its songs or albums in curated order")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Curated Lists") {}
