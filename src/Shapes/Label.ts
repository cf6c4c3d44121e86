/** The SQL that builds the label shape (Schema: src/Contract/Label.ts). */
import { Label } from "../Contract/Label.js"
import { shape } from "./Shape.js"

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

