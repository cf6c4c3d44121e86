import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { IdParam, PageParams } from "../Domain/Params.js"
import { ArtworkColors, ListAlbumEntry, ListSongEntry } from "../Domain/Song.js"

export const ContentType = Schema.Literal("songs", "albums")

const listHeaderFields = {
  id: Schema.Int,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  artwork_url: Schema.NullOr(Schema.String).annotations({ description: "Absolute URL, or null without artwork." }),
  artwork_colors: Schema.NullOr(ArtworkColors).annotations({ description: "null until computed." }),
  updated_at: Schema.String.annotations({ description: "RFC 3339 UTC: when the list was last edited." })
}

/** Curated list: only the array of the list's content_type has rows. */
export const CuratedList = Schema.Struct({
  ...listHeaderFields,
  show_artists: Schema.Boolean,
  show_writers: Schema.Boolean,
  content_type: ContentType,
  songs: Schema.Array(ListSongEntry).annotations({ description: "Published, non-deleted songs in curated order." }),
  albums: Schema.Array(ListAlbumEntry).annotations({ description: "Published albums in curated order." })
}).annotations({ identifier: "CuratedList" })
export type CuratedList = typeof CuratedList.Type

/** A list without its tracks; item_count counts the visible entries of its content_type. */
export const CuratedListSummary = Schema.Struct({
  ...listHeaderFields,
  content_type: ContentType,
  item_count: Schema.Int
}).annotations({ identifier: "CuratedListSummary" })

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
