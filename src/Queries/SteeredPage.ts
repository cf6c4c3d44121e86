import * as Statement from "effect/sql/Statement"
import { afterCursor, orderOf, pageHalves, type PageStrategy, tieOf } from "./Keyset.js"
import { unsafeFragment } from "../Database/SqlText.js"

const lit = unsafeFragment

/** Below this offset a walk from the nearer end is cheaper than a seek (a few hundred rows against a sum of kept counts). */
const SEEK_FROM_OFFSET = 1000

/**
 * A collected row read by primary key costs about this many rows of the scan the collection is
 * planned as otherwise (measured at 100k songs on the quiet machine: 3.3 us a probe, 0.11 us a row).
 */
const SCANNED_ROWS_PER_PROBE = 32

/** Ids a list's matches are among (one filter's link rows), and how many there are (a kept count). */
export interface KeySet {
  /** distinct tie-breaker values (each is joined to its row once) */
  readonly ids: Statement.Fragment
  /**
   * absent: the list's total, the set being the list's matches (a list of one filter): read by
   * key, its rows are not tested against the filters again
   */
  readonly size?: Statement.Fragment | undefined
}

/**
 * How keysetPage (its `steer` option: `steered(...)`) steers an offset page of a list with an
 * exact kept total (/v1/songs, /v1/albums), so that no offset the API takes (up to 2^31-1) walks
 * more than it must. The total is computed
 * first (a materialized CTE) and chooses, at run time, which arm of the one statement runs (the
 * others are gated off by one-time filters and read nothing):
 * - past the end (offset >= total) no index is walked at all;
 * - with a `seek` (kept counts per sort key: release dates, popular and title
 *   buckets), an ascending walk starts at the bound where the position falls, skipping only the
 *   rows of that bucket before it (a descending page is the ascending rows [total-offset-limit, total-offset));
 * - else the sort's index is walked from the nearer end (the second half backwards, put back in order);
 * - few matches (total * scanned < (offset + limit) * scale, scanned: the rows collecting reads, the
 *   total by default): collected by the filters' own indexes (or a year's range) and sorted;
 *   with `keys` and the smallest key set small (size * SCANNED_ROWS_PER_PROBE <= scale), read by
 *   primary key from that set instead (the prepared statement's generic plan otherwise joins the
 *   filter's rows with a scan of every row, or probes every row of a year's range); such a set is
 *   read by key rather than walked too when it has fewer ids than the walk would read rows.
 * A cursor page walks forwards from its key (or collects after it).
 *
 * The list's `filters` are the walk's row-by-row probes (`EXISTS (... OFFSET 0)`: not a join);
 * `collect` are the same as the planner should see them to collect the matches (a join, a range).
 * The statement is prepared once for every value, so its plan cannot depend on how many rows a
 * label or genre has: the exact total chooses the arm at run time instead.
 */
export interface Steering {
  /** the filters for collecting few matches; none: always walked */
  readonly collect?: ReadonlyArray<Statement.Fragment> | undefined
  /** about how many rows the unfiltered list has: a walk reads about (offset + limit) * scale / total of them */
  readonly scale?: Statement.Fragment | undefined
  /**
   * SQL of one row (key, tie, rows_before): the bound (sort key and tie-breaker) from which an
   * ascending walk of the list reaches `position` (a bigint expression), and the rows before it
   */
  readonly seek?: ((position: Statement.Fragment) => Statement.Fragment) | undefined
  /** sets of ids the matches are among (each filter's link rows): a small one is read by primary key */
  readonly keys?: ReadonlyArray<KeySet> | undefined
  /**
   * SQL of the rows a walk reads at most (a year's songs in release order, an index range): then
   * the matches are never collected by a scan, only read from a key set smaller than the walk
   */
  readonly range?: Statement.Fragment | undefined
  /**
   * SQL of how many rows collecting by `collect` reads (a year's range, each with probes); default
   * the total: the walk is chosen while it reads fewer
   */
  readonly scanned?: Statement.Fragment | undefined
  /**
   * The walk reads the sort's keys alone (an index-only range: the index carries what the filters
   * test) and then the page's rows by their tie-breaker, not every skipped row
   */
  readonly deferred?: boolean | undefined
}

/** keysetPage's `steer` option: this steering of its offset pages. */
export const steered = (steering: Steering): PageStrategy => (sql, sort, walkWhere, page, total) => {
  if (typeof sort.source !== "string" || total === undefined) throw new Error("a steered page needs a named source and a total")
  const { order, lastFirst, ascending } = orderOf(sort)
  const collect = steering.collect ?? []
  const a = lit(sort.alias)
  const n = sql`(SELECT n FROM total)`
  const half = pageHalves(sql, page, n)
  const { limit, offset } = half
  const position = sort.descending ? half.fromEnd : offset
  const seek = page.after === undefined && page.offset >= SEEK_FROM_OFFSET ? steering.seek : undefined
  /** the walk's rows in one order (walking or collecting: whichever reads fewer rows) */
  const walked = (where: Statement.Fragment, orderBy: string, count: Statement.Fragment, skip: Statement.Fragment) => {
    const walk = (columns: string) =>
      sql`SELECT ${lit(columns)} FROM ${lit(sort.source as string)} WHERE ${walkWhere} AND (SELECT walk FROM steer) AND ${where}
          ORDER BY ${lit(orderBy)} LIMIT ${count} OFFSET ${skip}`
    const tie = tieOf(sort).key
    // deferred: the page's rows in no order (the page's columns put them in order), by key from an
    // array (an IN was planned as a hash join over a scan of every row)
    return steering.deferred
      ? sql`SELECT ${a}.* FROM ${lit(sort.source as string)} WHERE ${lit(tie)} = ANY (ARRAY(${walk(tie)}))`
      : walk(`${sort.alias}.*`)
  }
  const arms = page.after !== undefined
    ? [walked(afterCursor(sql, sort, page), order, limit, sql`0`)]
    : seek !== undefined
    // rows [offset, offset+limit) in the sort's order, counted from the ascending end
    ? [walked(sql`${offset} < ${n} AND (${lit(sort.key)}, ${lit(tieOf(sort).key)}) >= ((SELECT key FROM seek), (SELECT tie FROM seek))`,
      ascending, half.rows, sql`greatest(${position} - (SELECT rows_before FROM seek), 0)`)]
    : [
      // the first half: the walk to the page is no longer than the walk from the end. OFFSET least(...):
      // planned for offset 2^31-1 as written, the gated-off arm got a parallel sort (workers started for nothing)
      walked(half.firstHalf, order, limit, sql`least(${offset}, ${n})`),
      // the second half, from the end (pageHalves)
      walked(half.secondHalf, lastFirst, half.rows, half.fromEnd)
    ]
  // few matches: collected by the filters' own indexes (OFFSET 0: not walked in order), then sorted
  // (no arm without rows: a `WHERE FALSE` arm over the table was planned as a parallel scan, two workers started for nothing)
  const collectedBy = (from: Statement.Fragment, filters: ReadonlyArray<Statement.Fragment>, gate: Statement.Fragment) =>
    sql`SELECT ${a}.* FROM (
      SELECT ${a}.* FROM ${from} WHERE ${Statement.and(filters)} AND ${afterCursor(sql, sort, page)} OFFSET 0) ${a}
    WHERE NOT (SELECT walk FROM steer) AND ${gate} AND ${offset} < ${n}
    ORDER BY ${lit(order)} LIMIT ${limit} OFFSET ${page.after === undefined ? sql`least(${offset}, ${n})` : sql`0`}`
  const keys = steering.keys ?? []
  // the smallest set's ids (each ARRAY(...) is an init plan: only the chosen one runs)
  const keyed = keys.length === 1
    ? sql`ARRAY(${keys[0]!.ids})`
    : sql`CASE (SELECT pick FROM steer) ${Statement.join(" ", false)(keys.map((k, i) => sql`WHEN ${lit(String(i))} THEN ARRAY(${k.ids})`))} END`
  const range = steering.range
  const collected = collect.length === 0 ? [] : [
    // joined from the set, not `tie = ANY (set)`: the generic plan walked an index range and tested
    // each row against the whole array (a parameter's array is not hashed): 6k ids x 6k rows, 190 ms
    // at 1M, now ~20 (a hash join; a LATERAL probe per id measured ~60)
    ...keys.length === 0 ? [] : [collectedBy(
      sql`unnest(${keyed}) keyed(id) JOIN ${lit(sort.source as string)} ON ${lit(tieOf(sort).key)} = keyed.id`,
      keys.every((k) => k.size === undefined) ? [] : collect,
      sql`(SELECT probe FROM steer)`
    )],
    ...range === undefined ? [collectedBy(lit(sort.source as string), collect, sql`NOT (SELECT probe FROM steer)`)] : []
  ]
  const scale = steering.scale ?? lit("0")
  // the smallest key set: whether it is small enough to be read by key (against the scan of every
  // row, or the walk of a range), and which it is
  const smallest = keys.length === 0 ? lit("(SELECT false AS probe, 0 AS pick, 0 AS size) k") : sql`(
      SELECT ${
    range === undefined
      ? sql`v.size * ${lit(String(SCANNED_ROWS_PER_PROBE))} <= (${scale})`
      : sql`v.size * t.n < (least(${offset}, greatest(t.n - ${offset}, 0)) + ${limit}) * (${range})`
  } AS probe, v.pick, v.size
      FROM (VALUES ${Statement.join(", ", false)(keys.map((k, i) => sql`(${k.size === undefined ? lit("t.n") : sql`coalesce((${k.size}), 0)::bigint`}, ${lit(String(i))})`))}) v(size, pick)
      ORDER BY v.size, v.pick LIMIT 1) k`
  // the rows a walk reads, times the total
  const walkedTimesTotal = sql`(least(${offset}, greatest(t.n - ${offset}, 0)) + ${limit}) * (${scale})`
  return {
    ctes: sql`total AS MATERIALIZED (SELECT (${total})::bigint AS n),
      steer AS MATERIALIZED (SELECT ${
      collect.length === 0
        ? lit("true")
        : range === undefined
        // walked while it reads fewer rows than collecting, and fewer than the smallest key set has when that is read by key
        ? sql`t.n * ${steering.scanned === undefined ? lit("t.n") : sql`(${steering.scanned})`} >= ${walkedTimesTotal}
              AND NOT (k.probe AND k.size * t.n < ${walkedTimesTotal})`
        : lit("NOT k.probe")
    } AS walk, k.probe, k.pick FROM total t, LATERAL ${smallest}),
      ${seek === undefined ? lit("") : sql`seek AS MATERIALIZED (SELECT * FROM (${seek(position)}) seek WHERE ${offset} < ${n}),`}`,
    page: Statement.join(" UNION ALL ", false)([...arms, ...collected].map((arm) => sql`(${arm})`)),
    total: n
  }
}
