/** The genre Schemas (/v1/genres, search); their SQL: src/Shapes/Genre.ts. */
import * as Schema from "effect/Schema"

const genreFields = {
  id: Schema.Int,
  slug: Schema.String,
  title: Schema.String,
  color: Schema.String.annotate({ description: "Display colour, #rrggbb." }),
  image_url: Schema.String.annotate({ description: "Absolute URL; a placeholder when the genre has no image." }),
  song_count: Schema.Int.annotate({ description: "Public songs." })
}

/** Genre list entry. */
export const GenreEntry = Schema.Struct(genreFields).annotate({ identifier: "GenreEntry" })

/** Genre detail: description is "" when absent. */
export const Genre = Schema.Struct({
  id: genreFields.id,
  slug: genreFields.slug,
  title: genreFields.title,
  description: Schema.String,
  color: genreFields.color,
  image_url: genreFields.image_url,
  song_count: genreFields.song_count
}).annotate({ identifier: "Genre" })
