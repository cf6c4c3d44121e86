/** The change feed entry and the SQL that builds it (/v1/changes). */
import * as Schema from "effect/Schema"
import { shape } from "../Shapes/Shape.js"

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

/** The entry for a judged row `c` of the feed: its kind, row_key, whether it is public now, and when. */
export const change = shape(Change, (c: string) => ({
  type: `${c}.kind`,
  id: `CASE WHEN ${c}.kind = 'users' THEN to_json(${c}.row_key) ELSE to_json(${c}.row_key::int) END`,
  change: `CASE WHEN ${c}.public THEN 'upsert' ELSE 'remove' END`,
  at: `iso_time(${c}.at)`
}), { from: "(SELECT l.kind, l.row_key, l.position % 2 = 0 AS public, l.at FROM change_log l) c", args: ["c"] })
