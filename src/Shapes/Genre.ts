/** The SQL that builds the genre shapes (Schemas: src/Contract/Genre.ts). */
import { Genre, GenreEntry } from "../Contract/Genre.js"
import { shape } from "./Shape.js"
import { PLACEHOLDER } from "./Song.js"

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

