/**
 * Similar songs as docs/api.md defines them, written plainly from the source tables (songs, credits,
 * roles, song_genres), none of the service's kept orders: the reference the service's answers are
 * compared with (test/similar-songs.test.ts over the fixture, test/bench/similar-answers.ts at 1M).
 * Each group is its 10 most watched-per-day public songs other than song $1; a song belongs to the
 * first group it matches (a shared performer, else a shared writer, else a shared genre).
 */
export interface SimilarIds {
  readonly by_artist: Array<number>
  readonly by_writers: Array<number>
  readonly by_others: Array<number>
}

const credited = (tag: string) =>
  `SELECT c.song_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
   WHERE c.artist_id IN (SELECT m.artist_id FROM credits m JOIN roles mr ON mr.id = m.role_id AND mr.tag = '${tag}' WHERE m.song_id = $1)`

const notCredited = (tag: string) =>
  `NOT EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
               JOIN credits m ON m.artist_id = c.artist_id AND m.song_id = $1 JOIN roles mr ON mr.id = m.role_id AND mr.tag = '${tag}'
               WHERE c.song_id = s.id)`

const group = (members: string, also: string) =>
  `ARRAY(SELECT s.id FROM public_songs s WHERE s.id <> $1 AND s.id IN (${members}) AND ${also}
         ORDER BY s.vidsvc_views_per_day DESC NULLS LAST, s.id DESC LIMIT 10)`

/** One row of three id arrays when song $1 is public, else none. */
export const similarDefinition = `
  SELECT ${group(credited("performer"), "true")} AS by_artist,
         ${group(credited("writer"), notCredited("performer"))} AS by_writers,
         ${group(
  "SELECT g.song_id FROM song_genres g WHERE g.genre_id IN (SELECT genre_id FROM song_genres WHERE song_id = $1)",
  `${notCredited("performer")} AND ${notCredited("writer")}`
)} AS by_others
  WHERE EXISTS (SELECT 1 FROM public_songs WHERE id = $1)`
