/**
 * The SQL that builds JSON in PostgreSQL, compact: every body prints byte for byte what
 * JSON.stringify would print for the same value. json_build_object prints `{"k" : v, "l" : w}`
 * and json_agg `[a, b]`; to_json of a row and array_to_json print no spaces, so every object and
 * array goes through these helpers.
 *
 *   jsonObjectSql({ id: "s.id", title: "s.title" })  -> {"id":1,"title":"Lagu"}
 *   jsonArraySql(jsonObjectSql({ ... }), "s.id")      -> [{...},{...}] in that order, [] when no rows
 *
 * Keys keep their order, null values stay (`"k":null`). Expressions are fixed SQL text of the code,
 * never request text.
 */

/** Keys in the order they print, each with the SQL expression of its value. */
export type JsonFields = Readonly<Record<string, string>>

const KEY = /^[a-z_][a-z0-9_]*$/

/**
 * A JSON object: the row `(value AS "key", ...)` through to_json. The subquery has no FROM, so
 * the expressions see the caller's rows; measured no slower than json_build_object.
 */
export const jsonObjectSql = (fields: JsonFields) => {
  const columns = Object.entries(fields).map(([key, expression]) => {
    if (!KEY.test(key)) throw new Error(`not a JSON key for SQL: ${key}`)
    return `${expression} AS "${key}"`
  })
  return `(SELECT to_json(_j) FROM (SELECT ${columns.join(",\n    ")}) _j)`
}

/** A JSON array of `element` over the rows of the enclosing query in `orderBy` order; NULL when there are none. */
export const jsonAggSql = (element: string, orderBy: string) =>
  `array_to_json(array_agg(${element} ORDER BY ${orderBy}))`

/** As jsonAggSql, `[]` when there are no rows. */
export const jsonArraySql = (element: string, orderBy: string) => `coalesce(${jsonAggSql(element, orderBy)}, '[]'::json)`
