import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import { artistVisibleSql } from "../Domain/Artist.js"
import { jsonArraySql } from "../Domain/JsonSql.js"
import { SEARCH_TOTAL_BOUND, searchTypeShapes } from "../Domain/SearchHit.js"
import { SEARCH_TYPES, type SearchType } from "./Api.js"
import { withSpan } from "../Spans.js"

const lit = Statement.unsafeFragment

/**
 * From the statement's `term`: the folded query; the same when it may match inside a word (3+
 * characters, else null: one or two letters inside words match nearly everything); the folded
 * fuzzy query (null when too short for typo tolerance); and the end of the query's range of
 * tails in byte order (sql/0015: `tail >= q AND tail < q_end` is "starts with q").
 */
const Q = "(SELECT q FROM term)"
const QI = "(SELECT qi FROM term)"
const FQ = "(SELECT fq FROM term)"
const Q_END = "(SELECT q_end FROM term)"
const N = "(SELECT n FROM term)"

/** Queries of this many characters or fewer match names that start with them. */
export const SHORT_QUERY_MAX_LENGTH = 2

/**
 * One type of search result: the table its hits are read from (alias `x`); its hit and section
 * shapes are src/Domain/SearchHit.ts's.
 */
interface SearchSource {
  readonly table: string
  /** two names per row (artists, labels, users): a row may match through both */
  readonly twoNames?: boolean
  /** artists: entries without `public_from` are decided by the kept counts at read time */
  readonly visibleWithoutDate?: (e: string) => string
}

const sources: Record<SearchType, SearchSource> = {
  songs: { table: "songs" },
  artists: {
    table: "artists",
    twoNames: true,
    // public_artists' rule from sql/0008's kept counts, for the few artists without a settled song
    visibleWithoutDate: artistVisibleSql
  },
  albums: { table: "albums" },
  curated_lists: { table: "curated_lists" },
  labels: { table: "labels", twoNames: true },
  genres: { table: "genres" },
  users: { table: "members", twoNames: true }
}

/** The type's number in search_entries.kind: its place in SEARCH_TYPES, from 1. */
const kindOf = (type: SearchType) => SEARCH_TYPES.indexOf(type) + 1

/** Entry `e` is public now (sql/0015: `public_from`; artists without one by the kept counts). */
const visible = (source: SearchSource) =>
  source.visibleWithoutDate === undefined
    ? "search_entry_is_public(e.public_from)"
    : `(search_entry_is_public(e.public_from) OR (e.public_from IS NULL AND ${source.visibleWithoutDate("e")}))`

/**
 * `e.tail = q` as a btree range: written as `=`, the generic plan read it from the type's
 * trigram index (pg_trgm supports equality), a whole-index scan for one letter (0.5 s).
 */
const equalsQuery = `e.tail >= ${Q} AND e.tail <= ${Q}`

/**
 * A short query's candidates for the page (names starting with it: score 1 when equal, else
 * 0.75): every equal name, and the most popular 2 x limit names starting with it, read in
 * popularity order from sql/0015's head indexes and stopped there (a row has at most two whole
 * names, so 2 x limit rows hold `limit` rows). Folding may turn one or two characters into more
 * (a ligature): then every name with that start.
 */
const shortStartsCte = (k: number, source: SearchSource) => {
  const head = (length: number) => `(SELECT e.id, 0.75 AS score, e.popularity, e.handle FROM search_entries e
        WHERE char_length(${Q}) = ${length} AND e.kind = ${k} AND e.whole AND left(e.tail, ${length}) = ${Q} AND ${visible(source)}
        ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * ${N})`
  return `starts_${k} AS MATERIALIZED (
    SELECT c.id, max(c.score) AS score, max(c.popularity) AS popularity, max(c.handle) AS handle FROM (
      SELECT e.id, 1 AS score, e.popularity, e.handle FROM search_entries e
        WHERE e.kind = ${k} AND e.whole AND ${equalsQuery} AND ${visible(source)}
      UNION ALL ${head(1)}
      UNION ALL ${head(2)}
      UNION ALL SELECT e.id, 0.75, e.popularity, e.handle FROM search_entries e
        WHERE char_length(${Q}) > 2 AND e.kind = ${k} AND e.whole AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${visible(source)}
    ) c GROUP BY c.id)`
}

/** Entries read from a long query's range before deciding it is common. */
const RANGE_READ = 3 * SEARCH_TOTAL_BOUND

/** A long query is common for type `k`: its first RANGE_READ tails hold the bound's worth of rows. */
const large = (k: number) => `(SELECT b.large FROM big_${k} b)`

/**
 * A long query's word-start matches (scores 1, 0.75, 0.5), one row per id with its best score.
 * `range`: the first RANGE_READ tails starting with the query (index-only). When they hold fewer
 * rows than the bound, they are all the matches (or, past RANGE_READ tails, the whole range is
 * read: only names repeating a word that often), and all are ranked. When they hold more, the
 * query is common ("cinta", "untuk"): the total is the bound, and the page comes from the most
 * popular matches of each score, read from search_entries_head2_idx in popularity order within
 * the query's first two characters and stopped at 2 x limit rows: every equal name (1), the
 * whole names starting with the query (0.75: a row has at most two), the rows with a later word
 * starting with it (0.5, one per row; fewer than `limit` rows can score more when this tier
 * reaches the page, so 2 x limit leaves `limit`).
 */
const longStartsCtes = (k: number, source: SearchSource) => {
  const score = `CASE WHEN e.whole AND e.tail = ${Q} THEN 1 WHEN e.whole THEN 0.75 ELSE 0.5 END`
  const inRange = `e.kind = ${k} AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${Q} <> '' AND ${visible(source)}`
  const rangeCount = `(SELECT b.tails FROM big_${k} b)`
  const popular = (whole: boolean, tierScore: string) =>
    `(SELECT e.id, ${tierScore} AS score, e.popularity, e.handle FROM search_entries e
        WHERE ${large(k)} AND e.kind = ${k} AND ${whole ? "" : "NOT "}e.whole AND left(e.tail, 2) = left(${Q}, 2)
          AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${visible(source)}
        GROUP BY e.popularity, e.handle, e.id ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * ${N})`
  return [
    `range_${k} AS MATERIALIZED (
    SELECT e.id, ${score} AS score, e.popularity, e.handle FROM search_entries e WHERE ${inRange} LIMIT ${RANGE_READ})`,
    `big_${k} AS MATERIALIZED (
    SELECT count(DISTINCT r.id) >= ${SEARCH_TOTAL_BOUND} AS large, count(*) AS tails FROM range_${k} r)`,
    `starts_${k} AS MATERIALIZED (
    SELECT c.id, max(c.score) AS score, max(c.popularity) AS popularity, max(c.handle) AS handle FROM (
      SELECT * FROM range_${k} WHERE NOT ${large(k)} AND ${rangeCount} < ${RANGE_READ}
      UNION ALL SELECT e.id, ${score}, e.popularity, e.handle FROM search_entries e
        WHERE NOT ${large(k)} AND ${rangeCount} >= ${RANGE_READ} AND ${inRange}
      UNION ALL SELECT e.id, 1, e.popularity, e.handle FROM search_entries e
        WHERE ${large(k)} AND e.kind = ${k} AND e.whole AND ${equalsQuery} AND ${visible(source)}
      UNION ALL ${popular(true, "0.75")}
      UNION ALL ${popular(false, "0.5")}
    ) c GROUP BY c.id)`
  ]
}

/**
 * One type's CTEs and its section, all fixed SQL text. `starts`: names with a word starting with
 * the query (scores 1, 0.75, 0.5: one index-only range of tails). `inside`: the query inside a
 * word (0.25), only when the word starts found fewer than the bound (past it the total is
 * "bound or more" and no inside match can reach the page); when they found at least `limit`,
 * inside matches only count towards the bound, so the scan stops there. `fuzzy`: a typo (0.25),
 * only when nothing else matched. Then the best `limit` and the bounded total.
 */
const typeSql = (type: SearchType, short: boolean) => {
  const source = sources[type]
  const k = kindOf(type)
  const starts = `starts_${k}`
  const inside = `inside_${k}`
  const fuzzy = `fuzzy_${k}`
  const matched = `matched_${k}`
  const ranked = `ranked_${k}`
  const startCount = `(SELECT count(*) FROM ${starts})`
  // one row per id: two-name rows may match through both names, and may have matched in `starts`
  const oneRow = source.twoNames === true
    ? {
      select: "e.id, 0.25 AS score, max(e.popularity) AS popularity, max(e.handle) AS handle",
      notFound: ` AND NOT EXISTS (SELECT 1 FROM ${starts} s WHERE s.id = e.id)`,
      group: " GROUP BY e.id"
    }
    : { select: "e.id, 0.25 AS score, e.popularity, e.handle", notFound: "", group: "" }
  const ctes = short
    ? [shortStartsCte(k, source), `${matched} AS (SELECT * FROM ${starts})`]
    : [
      ...longStartsCtes(k, source),
      `${inside} AS MATERIALIZED (
    SELECT ${oneRow.select}
    FROM search_entries e
    WHERE NOT ${large(k)} AND ${startCount} < ${SEARCH_TOTAL_BOUND} AND ${QI} IS NOT NULL
      AND e.kind = ${k} AND e.whole AND e.tail LIKE '%' || ${QI} || '%'
      AND NOT (e.tail LIKE ${Q} || '%' OR e.tail LIKE '% ' || ${Q} || '%') AND ${visible(source)}${oneRow.notFound}${oneRow.group}
    LIMIT (SELECT CASE WHEN c >= ${N} THEN greatest(${SEARCH_TOTAL_BOUND} - c, 0) END FROM (SELECT ${startCount} AS c) x))`,
      `${fuzzy} AS MATERIALIZED (
    SELECT ${oneRow.select}
    FROM search_entries e
    WHERE NOT EXISTS (SELECT 1 FROM ${starts}) AND NOT EXISTS (SELECT 1 FROM ${inside}) AND ${FQ} IS NOT NULL
      AND e.kind = ${k} AND e.whole AND ${FQ} <% e.tail AND ${visible(source)}${oneRow.group})`,
      `${matched} AS (SELECT * FROM ${starts} UNION ALL SELECT * FROM ${inside} UNION ALL SELECT * FROM ${fuzzy})`
    ]
  // short queries: `matched` holds the page's candidates only; the total counts names by their start
  const total = short
    ? `(SELECT count(DISTINCT c.id) FROM (
        SELECT e.id FROM search_entries e
        WHERE e.kind = ${k} AND e.whole AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${Q} <> '' AND ${visible(source)}
        LIMIT ${2 * SEARCH_TOTAL_BOUND}) c)`
    : `CASE WHEN ${large(k)} THEN ${SEARCH_TOTAL_BOUND} ELSE (SELECT count(*) FROM ${matched}) END`
  ctes.push(`${ranked} AS (
    SELECT * FROM ${matched} ORDER BY score DESC, popularity DESC, handle, id LIMIT ${N})`)
  const shapes = searchTypeShapes[type]
  const sectionJson = shapes.section.json(
    `(SELECT ${jsonArraySql(shapes.hit.json("x", "t.score"), "t.score DESC, t.popularity DESC, t.handle, t.id")}
              FROM ${ranked} t JOIN ${source.table} x ON x.id = t.id)`,
    `least(${total}, ${SEARCH_TOTAL_BOUND})`
  )
  const section = `SELECT ${k} AS kind, ${sectionJson}::text AS section`
  return { ctes, section }
}

export interface SearchParams {
  readonly q: string
  readonly fuzzy: boolean
  readonly limit: number
  readonly types: ReadonlyArray<SearchType>
}

/** The statement's text after `term`, one per set of types and query length (cached: fixed text). */
const textCache = new Map<string, string>()
const statementText = (types: ReadonlyArray<SearchType>, short: boolean) => {
  const ordered = SEARCH_TYPES.filter((type) => types.includes(type))
  const key = `${short}:${ordered.join(",")}`
  let text = textCache.get(key)
  if (text === undefined) {
    const parts = ordered.map((type) => typeSql(type, short))
    text = `${parts.flatMap((part) => part.ctes).join(",\n  ")}
  ${parts.map((part) => part.section).join("\n  UNION ALL ")}`
    textCache.set(key, text)
  }
  return text
}

/**
 * Every asked type's section in one statement of fixed text (one text per set of types and
 * short or not), ranked from search_entries (sql/0015) and built by Postgres as JSON text.
 */
export const searchStatement = (sql: SqlClient.SqlClient, params: SearchParams) => {
  const short = [...params.q].length <= SHORT_QUERY_MAX_LENGTH
  return sql<{ kind: number; section: string }>`
    WITH term AS MATERIALIZED (
      SELECT f.q, CASE WHEN char_length(f.q) >= 3 THEN f.q END AS qi, fold_name(${params.fuzzy ? params.q : null}::text) AS fq,
             f.q || chr(1114111) AS q_end, ${params.limit}::int AS n
      FROM (SELECT fold_name(${params.q}::text) AS q) f),
    ${lit(statementText(params.types, short))}`
}

export class SearchRepo extends Effect.Service<SearchRepo>()("catalogue/SearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** The asked types' sections as JSON text, by type. */
    const search = (params: SearchParams) =>
      searchStatement(sql, params).pipe(
        Effect.map((rows) => new Map(rows.map((row) => [SEARCH_TYPES[row.kind - 1]!, row.section] as const))),
        Effect.orDie,
        withSpan("SearchRepo.search")
      )
    return { search } as const
  })
}) {}
