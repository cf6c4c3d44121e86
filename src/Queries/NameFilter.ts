import type * as SqlClient from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import { unsafeFragment } from "../Database/SqlText.js"

const lit = unsafeFragment

/** Trigrams: a shorter query has none, and its trigram index scan returns every row to recheck. */
const TRIGRAM_LENGTH = 3

/** The query folded as the names are, once per statement (an init plan). */
export const foldedName = (sql: SqlClient.SqlClient, q: string): Statement.Fragment => sql`(SELECT fold_name(${q}::text))`

/** A query shorter than a trigram: no trigram index can find its matches. */
export const isShortQuery = (q: string) => [...q].length < TRIGRAM_LENGTH

/**
 * A list's `q` filter (docs/search.md): the row's folded name `columns` (trigram
 * indexed) contain the folded query, anywhere. The query is folded once per statement (an init
 * plan): `fold_name` is not inlined (it calls the STABLE `unaccent`), so written in the condition
 * it ran for every row a scan tested, twice a row with two columns (/v1/users?q=an near the end of
 * 32k matches at 1M songs: 0.63 s). A query shorter than a trigram is tested with `strpos`, which
 * no index serves: the rows are read once, not every row through each column's trigram index first.
 * A query that folds to nothing (only punctuation, LIKE's own characters among it) matches
 * nothing, as in /v1/search: every name contains the empty text.
 */
export const foldedNameContains = (sql: SqlClient.SqlClient, q: string, columns: ReadonlyArray<string>): Statement.Fragment => {
  const short = isShortQuery(q)
  const folded = () => foldedName(sql, q)
  return sql`(${folded()} <> '' AND (${
    Statement.join(" OR ", false)(
      columns.map((column) =>
        short ? sql`strpos(${lit(column)}, ${folded()}) > 0` : sql`${lit(column)} LIKE '%' || ${folded()} || '%'`
      )
    )
  }))`
}
