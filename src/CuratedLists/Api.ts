import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { CuratedList, CuratedListSummary } from "../Domain/CuratedList.js"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { IdParam, PageParams } from "../Domain/Params.js"

/** Kept here until src/Search imports ../Domain/CuratedList.js. */
export { CuratedListSummary }

export const ListPath = Schema.Struct({ listId: IdParam("listId") })

export class CuratedListsApi extends HttpApiGroup.make("CuratedLists")
  .add(
    HttpApiEndpoint.get("list", "/curated-lists")
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(ListEnvelope(CuratedListSummary, "CuratedListList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "Published curated lists, most recently updated first")
  )
  .add(
    HttpApiEndpoint.get("detail", "/curated-lists/:listId")
      .setPath(ListPath)
      .addSuccess(DetailEnvelope(CuratedList, "CuratedListResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "One published curated list with its songs or albums in curated order")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Curated Lists") {}
