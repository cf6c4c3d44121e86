/**
 * Oracles for the kept tables' tests: a kept table checked against the same rows written from
 * scratch from the tables they copy.
 */

/** SQL of one row `n`: the rows of one query missing from the other, both ways (0: the same rows, as often). */
export const rowsUnlike = (kept: string, now: string) =>
  `SELECT count(*)::int AS n FROM (((${kept}) EXCEPT ALL (${now})) UNION ALL ((${now}) EXCEPT ALL (${kept}))) d`

/** Songs row `s`'s `public_from` as the kept orders copy it (sql/0033), spelled out: published_at while not deleted. */
export const publicFromOf = (s: string) => `CASE WHEN ${s}.deleted_at IS NULL THEN ${s}.published_at END`
