/** The SQL that builds the change feed entry (Schema: src/Contract/Change.ts). */
import { Change } from "../Contract/Change.js"
import { shape } from "./Shape.js"

/** The entry for a judged row `c` of the feed: its kind, row_key, whether it is public now, and when. */
export const change = shape(Change, (c: string) => ({
  type: `${c}.kind`,
  id: `CASE WHEN ${c}.kind = 'users' THEN to_json(${c}.row_key) ELSE to_json(${c}.row_key::int) END`,
  change: `CASE WHEN ${c}.public THEN 'upsert' ELSE 'remove' END`,
  at: `iso_time(${c}.at)`
}), { from: "(SELECT l.kind, l.row_key, l.position % 2 = 0 AS public, l.at FROM change_log l) c", args: ["c"] })

