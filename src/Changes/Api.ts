import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError } from "../Domain/Errors.js"
import { FeedLimitParam } from "../Domain/Params.js"

export const CHANGE_TYPES = ["songs", "albums", "curated_lists", "artists", "genres", "labels", "users"] as const

/** One entry of the feed: which public row changed, never its content. */
export const Change = Schema.Struct({
  type: Schema.Literal(...CHANGE_TYPES),
  id: Schema.Union(Schema.Int, Schema.String).annotations({
    description: "The row's id; for users, the public username (its URL key)."
  }),
  change: Schema.Literal("upsert", "remove").annotations({
    description: "upsert: public now, or its public content may have changed (fetch it again). " +
      "remove: no longer public (unpublished, deleted, banned, renamed handle)."
  }),
  at: Schema.String.annotations({ description: "When the change was written or the scheduled row appeared (RFC 3339 UTC, ms)." })
}).annotations({ identifier: "Change" })

export const ChangesParams = Schema.Struct({
  since: Schema.optional(
    Schema.String.annotations({ description: "meta.next_cursor of an earlier answer; absent: from the beginning." })
  ),
  limit: Schema.optional(FeedLimitParam)
})

export class ChangesApi extends HttpApiGroup.make("Changes")
  .add(
    HttpApiEndpoint.get("changes", "/changes")
      .setUrlParams(ChangesParams)
      .addSuccess(ListEnvelope(Change, "ChangeList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "What changed in the public catalogue since a cursor, for mirrors")
      .annotate(
        OpenApi.Description,
        "Apply the entries in order to a copy that starts empty and it equals the public catalogue. " +
          "`limit` 1 to 1000 (default 100) bounds the entries read; one row appears at most once per page. " +
          "`meta.total` is an integer: the number of entries in this page (`data.length`); `meta.offset` is 0. " +
          "`meta.next_cursor` is never empty: poll with it (the same cursor comes back when nothing changed). " +
          "A page can be shorter than `limit`, even empty, while more follow: the client has caught up when " +
          "`next_cursor` comes back equal to `since`. " +
          "A change shows once every transaction that started before it has finished; scheduled rows show " +
          "when their time has passed. A cursor not made by this endpoint is bad_request."
      )
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Changes") {}
