/** The change feed entry (/v1/changes); its SQL: src/Shapes/Change.ts. */
import * as Schema from "effect/Schema"

export const CHANGE_TYPES = ["songs", "albums", "curated_lists", "artists", "genres", "labels", "users"] as const

/** One entry of the feed: which public row changed, never its content. */
export const Change = Schema.Struct({
  type: Schema.Literals(CHANGE_TYPES),
  id: Schema.Union([Schema.Int, Schema.String]).annotate({
    description: "The row's id; for users, the public username (its URL key)."
  }),
  change: Schema.Literals(["upsert", "remove"]).annotate({
    description: "upsert: public now, and it became public or something its own paths show changed (fetch it again). " +
      "remove: no longer public (unpublished, deleted, banned, renamed handle)."
  }),
  at: Schema.String.annotate({ description: "When the change was written or the scheduled row appeared (RFC 3339 UTC, ms)." })
}).annotate({ identifier: "Change" })
