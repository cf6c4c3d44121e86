/** The discovery Schema (/v1/discovery); its SQL: src/Shapes/Discovery.ts. */
import * as Schema from "effect/Schema"
import { CuratedListSummary } from "./CuratedList.js"
import { SongSummary } from "./Song.js"

/** Four selections, up to 12 each, the same all day (no randomness; cacheable). */
export const Discovery = Schema.Struct({
  new_releases: Schema.Array(SongSummary).annotate({
    description: "Songs released in the last 30 days (none in the future), newest first."
  }),
  trending: Schema.Array(SongSummary).annotate({ description: "Songs with the most vidsvc views per day." }),
  featured_lists: Schema.Array(CuratedListSummary).annotate({
    description: "Published curated lists, most recently updated first."
  }),
  on_this_day: Schema.Array(SongSummary).annotate({
    description: "Songs released on today's month and day in earlier years (exact dates only), most viewed first."
  })
}).annotate({ identifier: "Discovery" })
export type Discovery = typeof Discovery.Type
