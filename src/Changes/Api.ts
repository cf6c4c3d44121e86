import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { Change } from "../Contract/Change.js"
import { DocumentedText, FeedLimitParam } from "../Contract/Params.js"
import { listEndpoint } from "../Contract/Endpoints.js"

export const ChangesParams = Schema.Struct({
  since: Schema.optional(
    DocumentedText({ type: "string", description: "meta.next_cursor of an earlier answer; absent: from the beginning." })
  ),
  limit: Schema.optional(FeedLimitParam)
})

export class ChangesApi extends HttpApiGroup.make("Changes")
  .add(
    listEndpoint("changes", "/changes", ChangesParams, Change, "ChangeList", "What changed in the public catalogue since a cursor, for mirrors")
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
