/** The label shape and the SQL that builds it: shown by /v1/labels and by search. */
import * as Schema from "effect/Schema"
import { shape } from "../Shapes/Shape.js"

/** Label: formerly_known_as is "" when the label had no other name. */
export const Label = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  formerly_known_as: Schema.String,
  slug: Schema.String,
  song_count: Schema.Int.annotate({ description: "Public songs." }),
  album_count: Schema.Int.annotate({ description: "Public albums." })
}).annotate({ identifier: "Label" })
export type Label = typeof Label.Type

/** Public counts of labels row `l` read from kept counts, one probe each. */
export const labelCountsSql = (l: string) => ({
  songCount: `coalesce((SELECT lc.song_count FROM public_label_counts lc WHERE lc.label_id = ${l}.id), 0)`,
  albumCount: `coalesce((SELECT lc.album_count FROM public_label_counts lc WHERE lc.label_id = ${l}.id), 0)`
})

/** Label for labels row `l`, with its public counts as SQL expressions. */
export const label = shape(Label, (l: string, counts: { readonly songCount: string; readonly albumCount: string }) => ({
  id: `${l}.id`,
  name: `${l}.name`,
  formerly_known_as: `coalesce(${l}.formerly_known_as, '')`,
  slug: `${l}.slug`,
  song_count: counts.songCount,
  album_count: counts.albumCount
}), { from: "labels l", args: ["l", labelCountsSql("l")] })
