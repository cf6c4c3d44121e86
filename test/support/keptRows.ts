/**
 * Oracles for the kept tables' tests: a kept table checked against the same rows written from
 * scratch from the tables they copy.
 */

/** SQL of one row `n`: the rows of one query missing from the other, both ways (0: the same rows, as often). */
export const rowsUnlike = (kept: string, now: string) =>
  `SELECT count(*)::int AS n FROM (((${kept}) EXCEPT ALL (${now})) UNION ALL ((${now}) EXCEPT ALL (${kept}))) d`

/** Songs row `s`'s `public_from` as the kept orders copy it, spelled out: published_at while not deleted. */
export const publicFromOf = (s: string) => `CASE WHEN ${s}.deleted_at IS NULL THEN ${s}.published_at END`

/**
 * kept grams against the grams of the kept names written from scratch, and the kept
 * counts against the pairs: rows of `rowsUnlike`s to sum (0: the same rows).
 */
export const artistNameGramsUnlike = [
  rowsUnlike(
    "SELECT gram, artist_id FROM artist_name_grams",
    "SELECT g, artist_id FROM artist_song_counts CROSS JOIN unnest(name_grams(search_name, search_full_name)) g WHERE settled_songs > 0"
  ),
  rowsUnlike("SELECT gram, artists FROM artist_name_gram_counts WHERE artists <> 0", "SELECT gram, count(*)::int FROM artist_name_grams GROUP BY gram")
] as const

/** The same for kept grams of the public members. */
export const memberNameGramsUnlike = [
  rowsUnlike(
    "SELECT gram, member_id FROM member_name_grams",
    `SELECT g, id FROM members CROSS JOIN unnest(name_grams(search_name, search_username)) g
     WHERE member_is_public(username, is_banned)`
  ),
  rowsUnlike("SELECT gram, members FROM member_name_gram_counts WHERE members <> 0", "SELECT gram, count(*)::int FROM member_name_grams GROUP BY gram")
] as const
