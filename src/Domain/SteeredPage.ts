import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import { runStatement } from "../Database.js"
import type { BadRequest } from "./Errors.js"
import { afterCursor, type KeysetResult, orderOf, pageColumns, pageResult, type TableKeysetSort } from "./Keyset.js"
import { type PageParamsInput, resolvePage } from "./Pagination.js"

const lit = Statement.unsafeFragment

/** Below this offset the walk is cheaper than a seek (a few hundred rows against ~24k kept dates). */
const SEEK_FROM_OFFSET = 1000

/**
 * One page of a list (/v1/songs, /v1/albums) in one statement, as src/Domain/Keyset.ts's keysetPage (same answers,
 * same cursors) but with an exact kept `total` to steer the walk of an offset page, so that no
 * offset the API takes (up to 2^31-1) walks more than half of the matching songs:
 * - past the end (offset >= total) no index is walked at all;
 * - in the second half, the sort's index is walked backwards from the end (offset total-offset-limit)
 *   and the page put back in order.
 * - with a `seek` (release order: sql/0018's public_song_release_seek), the walk starts at the sort
 *   key where the offset falls, skipping only the songs of that key before it.
 * - few matches (total^2 < (offset + limit) * scale): collected and sorted instead of walked.
 * A cursor page walks forwards from its key, as keysetPage does (or collects after it).
 */
/**
 * A list's filters twice: as the planner should see them to collect the matches and sort them (a
 * join, a range), and as row-by-row probes (`EXISTS (... OFFSET 0)`: not a join) for the walk of
 * the sort's index. The statement is prepared once for every value, so its plan cannot depend on
 * how many rows a label or genre has: the exact total chooses the arm at run time instead.
 */
export interface SteeredFilters {
  readonly collect: ReadonlyArray<Statement.Fragment>
  readonly walk: ReadonlyArray<Statement.Fragment>
  /** about how many rows the unfiltered list has: a walk reads about (offset + limit) * scale / total of them */
  readonly scale: Statement.Fragment
}

export const steeredKeysetPage = (
  sort: TableKeysetSort,
  filters: SteeredFilters,
  params: PageParamsInput,
  scope: string,
  total: Statement.Fragment,
  /** SQL of one row (key, songs_before): where a walk in this order reaches the page's offset */
  seek?: (offset: number) => Statement.Fragment
): Effect.Effect<KeysetResult, BadRequest, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const page = yield* resolvePage(params, scope, [sort.keyType, "id"])
    const { order, lastFirst: lastFirstText } = orderOf(sort)
    const lastFirst = lit(lastFirstText)
    const and = (list: ReadonlyArray<Statement.Fragment>) => list.length === 0 ? lit("TRUE") : Statement.and(list)
    const walkWhere = and(filters.walk)
    const source = lit(sort.source)
    const a = lit(sort.alias)
    const offset = sql`CAST(${page.offset} AS bigint)`
    const limit = sql`CAST(${page.limit} AS bigint)`
    const after = afterCursor(sql, sort, page)
    const seeking = seek !== undefined && page.after === undefined && page.offset >= SEEK_FROM_OFFSET
    // walk (in index order, probing the filters) or collect the matches and sort them: whichever reads fewer rows
    const walking = sql`(SELECT walk FROM steer)`
    const forward = seeking
      ? sql`SELECT ${a}.* FROM ${source}
            WHERE ${walkWhere} AND ${walking} AND ${offset} < (SELECT n FROM total)
              AND ${lit(sort.key)} ${lit(sort.descending ? "<=" : ">=")} (SELECT key FROM seek)
            ORDER BY ${lit(order)} LIMIT ${limit} OFFSET ${offset} - (SELECT songs_before FROM seek)`
      : page.after === undefined
      // the first half: the walk to the page is no longer than the walk from the end. OFFSET least(...):
      // planned for offset 2^31-1 as written, the gated-off arm got a parallel sort (workers started for nothing)
      ? sql`SELECT ${a}.* FROM ${source}
            WHERE ${walkWhere} AND ${walking} AND ${offset} < (SELECT n FROM total) AND 2 * ${offset} + ${limit} <= (SELECT n FROM total)
            ORDER BY ${lit(order)} LIMIT ${limit} OFFSET least(${offset}, (SELECT n FROM total))`
      : sql`SELECT ${a}.* FROM ${source} WHERE ${walkWhere} AND ${walking} AND ${after} ORDER BY ${lit(order)} LIMIT ${limit}`
    // the second half, from the end: rows [offset, offset+limit) are the last-first rows [total-offset-limit, total-offset)
    const backward = page.after === undefined && !seeking
      ? sql`SELECT ${a}.* FROM ${source}
            WHERE ${walkWhere} AND ${walking} AND ${offset} < (SELECT n FROM total) AND 2 * ${offset} + ${limit} > (SELECT n FROM total)
            ORDER BY ${lastFirst}
            LIMIT greatest(least(${limit}, (SELECT n FROM total) - ${offset}), 0)
            OFFSET greatest((SELECT n FROM total) - ${offset} - ${limit}, 0)`
      : sql`SELECT ${a}.* FROM ${source} WHERE FALSE`
    // few matches: collected by the filters' own indexes (OFFSET 0: not walked in order), then sorted
    const collected = filters.collect.length === 0
      ? sql`SELECT ${a}.* FROM ${source} WHERE FALSE`
      : sql`SELECT ${a}.* FROM (SELECT ${a}.* FROM ${source} WHERE ${and(filters.collect)} AND ${after} OFFSET 0) ${a}
            WHERE NOT ${walking} AND ${offset} < (SELECT n FROM total)
            ORDER BY ${lit(order)} LIMIT ${limit} OFFSET ${page.after === undefined ? sql`least(${offset}, (SELECT n FROM total))` : sql`0`}`
    const rows = yield* runStatement(sql, sql<{ total: number; served: number; json: string; last_key: string | null }>`
      WITH total AS MATERIALIZED (SELECT (${total})::bigint AS n),
      steer AS MATERIALIZED (
        SELECT ${filters.collect.length === 0 ? lit("true") : sql`t.n * t.n >= (least(${offset}, greatest(t.n - ${offset}, 0)) + ${limit}) * (${filters.scale})`} AS walk
        FROM total t),
      seek AS MATERIALIZED (${seeking ? seek(page.offset) : sql`SELECT NULL AS key, 0 AS songs_before`}),
      page AS ((${forward}) UNION ALL (${backward}) UNION ALL (${collected}))
      SELECT
        (SELECT n FROM total)::int AS total,
        ${pageColumns(sort)}`).pipe(Effect.orDie)
    return pageResult(rows[0] ?? { total: 0, served: 0, json: "[]", last_key: null }, page, scope, true)
  })
