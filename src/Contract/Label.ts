/** The label Schema (/v1/labels, search); its SQL: src/Shapes/Label.ts. */
import * as Schema from "effect/Schema"

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
