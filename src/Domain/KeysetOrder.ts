import type * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import type { KeyType } from "./Cursor.js"
import type { KeysetSort } from "./Keyset.js"
import type { PageRequest } from "./Pagination.js"

/** How SQL casts a cursor's key value back: the column's type (`id` is an int4 id, `dateOrEmpty` text). */
const castType: Record<KeyType, string> = {
  id: "int",
  int: "int",
  bigint: "bigint",
  text: "text",
  date: "date",
  dateOrEmpty: "text",
  timestamptz: "timestamptz",
  xid: "xid8",
  position: "bigint",
  micros: "bigint"
}

const lit = Statement.unsafeFragment

/** The unique last sort column of a sort: `tie`, else the alias's id. */
export const tieOf = (sort: KeysetSort) => sort.tie ?? { key: `${sort.alias}.id`, keyType: "id" as const }

/**
 * A sort's ORDER BY text, the same reversed (the page's last row first), and whichever of the two
 * is ascending (the order kept counts are summed in).
 */
export const orderOf = (sort: KeysetSort) => {
  const tie = tieOf(sort).key
  const [direction, reverse] = sort.descending ? ["DESC", "ASC"] : ["ASC", "DESC"]
  const order = `${sort.key} ${direction}, ${tie} ${direction}`
  const lastFirst = `${sort.key} ${reverse}, ${tie} ${reverse}`
  return { order, lastFirst, ascending: sort.descending ? lastFirst : order }
}

/** The rows after a cursor's key in the sort's order (TRUE without a cursor). */
export const afterCursor = (sql: SqlClient.SqlClient, sort: KeysetSort, page: PageRequest): Statement.Fragment => {
  const tie = tieOf(sort)
  return page.after === undefined
    ? lit("TRUE")
    : sql`(${lit(sort.key)}, ${lit(tie.key)}) ${lit(sort.descending ? "<" : ">")} (${lit(sort.negated ? "-" : "")}CAST(${
      page.after[0]
    } AS ${lit(castType[sort.keyType])}), CAST(${page.after[1]} AS ${lit(castType[tie.keyType])}))`
}
