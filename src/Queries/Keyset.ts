import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Effect from "effect/Effect"
import { Statements } from "../Database.js"
import type { ListMeta } from "../Contract/Envelope.js"
import type { KeyType, SortKey } from "./Cursor.js"
import type { BadRequest } from "../Contract/Errors.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { type PageParamsInput, type PageRequest, pageMeta, resolvePage } from "./Pagination.js"
import { unsafeFragment } from "../Database/SqlText.js"

/**
 * One sort of one list, all fixed SQL text (never request text), so statement texts stay a
 * bounded set (prepared statements). Rows come from `source` (a table, view or subquery
 * with its alias), are ordered by `key` then the tie-breaker, and are shown as `item`.
 */
export interface KeysetSort {
  /**
   * e.g. `public_songs s`; or built per request, with parameters (one owner's rows) and a plan
   * chosen by how deep the page is (`offset + limit`). Built as several parts (disjoint row sets,
   * each FROM item with the alias): each part is paged on its own (`offset + limit` rows in
   * order, an index range of its own) and the parts' rows merged, so that the planner never
   * sorts a whole part to find a page.
   */
  readonly source: string | ((page: PageRequest) => Statement.Fragment | ReadonlyArray<Statement.Fragment>)
  /** the alias `source` gives its rows; `key`, `keyJson` and `item` read it */
  readonly alias: string
  /** the sort expression */
  readonly key: string
  /** the sort value as it goes into the cursor (JSON: number or string) */
  readonly keyJson: string
  readonly keyType: KeyType
  /** the JSON of one row */
  readonly item: string
  readonly descending: boolean
  /**
   * `key` is minus the cursor's value (e.g. `-x.song_count` for "most first, then id ascending"
   * as one ascending range); the cursor keeps the value itself
   */
  readonly negated?: boolean | undefined
  /** the unique last sort column; default `<alias>.id`. Users sort by handle: no internal ids in cursors. */
  readonly tie?: { readonly key: string; readonly keyType: KeyType } | undefined
}

/** A sort over one table or view, named (not built per page). */
export interface TableKeysetSort extends KeysetSort {
  readonly source: string
}

/** A timestamp as a cursor value: microseconds, so that casting it back gives the exact instant. */
export const timestampKeyJson = (expression: string) =>
  `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

export interface KeysetOptions {
  /** an SQL expression for the total, when a kept count is cheaper than counting the rows */
  readonly total?: Statement.Fragment | undefined
  /** an SQL boolean: does the list's owner exist (a public member, a genre...)? Checked in the same statement. */
  readonly guard?: Statement.Fragment | undefined
  /**
   * Read the source once for the page and the total (a materialized CTE): for a source whose
   * cost is its matches whatever the page (a name search), counted anyway
   */
  readonly readOnce?: boolean | undefined
  /** The source gives the page's rows itself, past the offset (a walk that skips them) */
  readonly pagedBySource?: boolean | undefined
  /**
   * `total` counts exactly the rows the walk finds, and costs less than a walk that finds none (a
   * filter on the entries of a kept order walks all of them): counted first, and the walk skipped
   * when no row is left past the offset. (A part's LIMIT bounded by the count too made Postgres
   * sort the part instead of walking it in order: not done.)
   */
  readonly countFirst?: boolean | undefined
  /**
   * `total` is exact and cheap (kept): an offset page past the middle of a list built of parts
   * reads each part from its end, the nearer one, and puts the rows back in order
   */
  readonly fromNearerEnd?: boolean | undefined
  /**
   * How the page finds its rows instead of the plain walk: src/Queries/SteeredPage.ts's `steered`
   * (an offset page steered by the exact `total`, which it requires)
   */
  readonly steer?: PageStrategy | undefined
}

export interface KeysetResult {
  readonly itemsJson: string
  readonly meta: ListMeta
  /** false when `guard` said the owner does not exist */
  readonly found: boolean
}

const lit = unsafeFragment

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

/** How a page statement finds its rows: CTEs before `page` (each ending with a comma), `page`'s query, the total. */
export interface PagePlan {
  readonly ctes: Statement.Fragment
  readonly page: Statement.Fragment
  readonly total: Statement.Fragment
}

/** A way of finding a page's rows other than the plain walk: the list's filters ANDed, the page asked, the total if given. */
export type PageStrategy = (
  sql: SqlClient.SqlClient,
  sort: KeysetSort,
  where: Statement.Fragment,
  page: PageRequest,
  total: Statement.Fragment | undefined
) => PagePlan

/** The columns every page statement ends with, read from its CTE `page`: served, items, last key. */
const pageColumns = (sort: KeysetSort) => {
  const { order, lastFirst } = orderOf(sort)
  const a = sort.alias
  return lit(`(SELECT count(*) FROM page)::int AS served,
        (SELECT ${jsonArraySql(sort.item, order)} FROM page ${a})::text AS json,
        (SELECT json_build_array(${sort.keyJson}, ${tieOf(sort).key}) FROM page ${a} ORDER BY ${lastFirst} LIMIT 1)::text
          AS last_key`)
}

/**
 * How a plain page finds its rows: the source's rows after the cursor (or `offset` skipped) in
 * order; built as parts, each part paged on its own and the parts' rows merged.
 */
const plainPlan = (
  sql: SqlClient.SqlClient,
  sort: KeysetSort,
  where: Statement.Fragment,
  page: PageRequest,
  options: KeysetOptions
): PagePlan => {
  const orderBy = lit(orderOf(sort).order)
  const after = afterCursor(sql, sort, page)
  const built = typeof sort.source === "string" ? lit(sort.source) : sort.source(page)
  const a = lit(sort.alias)
  const skipped = page.after === undefined && !options.pagedBySource ? page.offset : 0
  const parts = Array.isArray(built) ? built : undefined
  const source = options.readOnce
    ? sql`listed ${a}`
    : parts === undefined
    ? built as Statement.Fragment
    : sql`(${Statement.join(" UNION ALL ", false)(parts.map((part) => sql`SELECT ${a}.* FROM ${part}`))}) ${a}`
  const nearer = options.fromNearerEnd === true && options.total !== undefined && parts !== undefined && page.after === undefined
  const counted = (options.countFirst === true || nearer) && options.total !== undefined
  const pagedSource = parts === undefined ? source : sql`(${
    Statement.join(" UNION ALL ", false)(parts.map((part) =>
      sql`(SELECT ${a}.* FROM ${part} WHERE ${where} AND ${after} ORDER BY ${orderBy} LIMIT ${page.limit + skipped})`
    ))
  }) ${a}`
  const left = counted ? sql`(SELECT c.n FROM counted c) > ${page.after === undefined ? page.offset : 0}` : lit("TRUE")
  const ctes = [
    ...(options.readOnce ? [sql`listed AS MATERIALIZED (SELECT ${a}.* FROM ${built as Statement.Fragment}),`] : []),
    ...(counted ? [sql`counted AS MATERIALIZED (SELECT (${options.total!})::int AS n),`] : [])
  ]
  const forward = sql`SELECT ${a}.* FROM ${pagedSource} WHERE ${where} AND ${after} AND ${left}
      ORDER BY ${orderBy} LIMIT ${page.limit} OFFSET ${skipped}`
  return {
    ctes: Statement.join(" ", false)(ctes),
    page: nearer ? fromEnd(sql, sort, where, page, parts!, forward) : forward,
    total: counted ? lit("SELECT c.n FROM counted c") : options.total ?? sql`SELECT count(*) FROM ${source} WHERE ${where}`
  }
}

/**
 * An offset page of a list of `n` rows (an SQL expression) read from either end: in the first
 * half the walk from the start is the shorter one; past it, rows [offset, offset + limit) are the
 * last-first rows [n - offset - limit, n - offset) (`fromEnd` of them skipped). `rows`: how many
 * of the page's rows exist.
 */
export const pageHalves = (sql: SqlClient.SqlClient, page: PageRequest, n: Statement.Fragment) => {
  const offset = sql`CAST(${page.offset} AS bigint)`
  const limit = sql`CAST(${page.limit} AS bigint)`
  return {
    offset,
    limit,
    firstHalf: sql`${offset} < ${n} AND 2 * ${offset} + ${limit} <= ${n}`,
    secondHalf: sql`${offset} < ${n} AND 2 * ${offset} + ${limit} > ${n}`,
    rows: sql`greatest(least(${limit}, ${n} - ${offset}), 0)`,
    fromEnd: sql`greatest(${n} - ${offset} - ${limit}, 0)`
  }
}

/**
 * `forward` (the walk from the start) while the page lies in the first half of the list, else
 * each part read from its end: rows [offset, offset + limit) are the last-first rows
 * [n - offset - limit, n - offset), n the counted total (CTE `counted`).
 */
const fromEnd = (
  sql: SqlClient.SqlClient,
  sort: KeysetSort,
  where: Statement.Fragment,
  page: PageRequest,
  parts: ReadonlyArray<Statement.Fragment>,
  forward: Statement.Fragment
) => {
  const a = lit(sort.alias)
  const lastFirst = lit(orderOf(sort).lastFirst)
  const n = lit("(SELECT c.n FROM counted c)")
  const half = pageHalves(sql, page, n)
  const tails = Statement.join(" UNION ALL ", false)(parts.map((part) =>
    sql`(SELECT ${a}.* FROM ${part} WHERE ${where} ORDER BY ${lastFirst} LIMIT greatest(${n} - ${half.offset}, 0))`
  ))
  return sql`(SELECT ${a}.* FROM (${forward}) ${a} WHERE ${half.firstHalf})
    UNION ALL
    (SELECT ${a}.* FROM (${tails}) ${a} WHERE ${half.secondHalf}
     ORDER BY ${lastFirst} LIMIT ${half.rows} OFFSET ${half.fromEnd})`
}

/**
 * One page of a list in one statement: total, the page's items as JSON built by Postgres, and
 * the last row's key for `next_cursor`. With a cursor the page starts after its key (keyset),
 * so a deep page costs what the first costs; without one, `offset` rows are skipped, or, with
 * `steer`, found from the nearer end, a kept count's seek, or the filters' own indexes.
 * `filters` are fragments ANDed together (their parameters bound, their text fixed).
 */
export const keysetPage = (
  sort: KeysetSort,
  filters: ReadonlyArray<Statement.Fragment>,
  params: PageParamsInput,
  scope: string,
  options: KeysetOptions = {}
): Effect.Effect<KeysetResult, BadRequest | SqlError.SqlError, SqlClient.SqlClient | Statements> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Statements
    const page = yield* resolvePage(params, scope, [sort.keyType, tieOf(sort).keyType])
    const where = filters.length === 0 ? lit("TRUE") : Statement.and(filters)
    const plan = options.steer === undefined
      ? plainPlan(sql, sort, where, page, options)
      : options.steer(sql, sort, where, page, options.total)
    const rows = yield* statements.runComposed(sql<{ found: boolean; total: number; served: number; json: string; last_key: string | null }>`
      WITH ${plan.ctes} page AS (${plan.page})
      SELECT
        (${options.guard ?? lit("TRUE")}) AS found,
        (${plan.total})::int AS total,
        ${pageColumns(sort)}`)
    const row = rows[0] ?? { found: false, total: 0, served: 0, json: "[]", last_key: null }
    const lastKey = row.last_key === null ? undefined : (JSON.parse(row.last_key) as SortKey)
    return { itemsJson: row.json, meta: pageMeta(page, scope, row.total, row.served, lastKey), found: row.found }
  })
