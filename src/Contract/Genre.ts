/** The genre shapes and the SQL that builds them: shown by /v1/genres and by search. */
import * as Schema from "effect/Schema"
import { shape } from "../Shapes/Shape.js"
import { PLACEHOLDER } from "./Song.js"

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

/** Public songs of genres row `g` from kept counts. */
export const genreSongCountSql = (g: string) => `coalesce(public_genre_song_count(${g}.id), 0)`

/** Genre list entry for genres row `g`, with its public song count as an SQL expression. */
export const genreEntry = shape(GenreEntry, (g: string, songCount: string) => ({
  id: `${g}.id`,
  slug: `${g}.slug`,
  title: `${g}.title`,
  color: `${g}.color`,
  image_url: `asset_url(${g}.image_key, '${PLACEHOLDER.genreImage}')`,
  song_count: songCount
}), { from: "genres g", args: ["g", genreSongCountSql("g")] })

/** Genre detail for genres row `g`. */
export const genre = shape(Genre, (g: string, songCount: string) => {
  const { id, slug, title, ...rest } = genreEntry.fields(g, songCount)
  return { id, slug, title, description: `coalesce(${g}.description, '')`, ...rest }
}, { from: "genres g", args: ["g", genreSongCountSql("g")] })
