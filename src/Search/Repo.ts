import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import { artistVisibleSql } from "../Domain/Artist.js"
import { jsonArraySql } from "../Domain/JsonSql.js"
import { SEARCH_TOTAL_BOUND, searchTypeShapes } from "../Domain/SearchHit.js"
import { SEARCH_TYPES, type SearchType } from "./Api.js"
import { type Prepared, Statements } from "../Database.js"
import { withSpan } from "../Spans.js"

const lit = Statement.unsafeFragment

/**
 * The statement's `term` row, joined beside the ranked kinds (so each column is one parameter
 * of the ranking body, not a subquery of its own at every use): the folded query; the same when
 * it may match inside a word (3+ characters, else null: one or two letters inside words match
 * nearly everything); the same when it may match with a typo (else null); and the end of the
 * query's range of tails in byte order (sql/0015: `tail >= q AND tail < q_end` is "starts with q").
 */
const Q = "term.q"
const QI = "term.qi"
const FQ = "term.fq"
const Q_END = "term.q_end"
const N = "term.n"

/** Queries of this many characters or fewer match names that start with them. */
export const SHORT_QUERY_MAX_LENGTH = 2

/** One type of search result: the table its hits are read from (alias `x`); its hit and section shapes are in src/Domain/SearchHit.ts. */
interface SearchSource {
  readonly table: string
}

const sources: Record<SearchType, SearchSource> = {
  songs: { table: "songs" },
  artists: { table: "artists" },
  albums: { table: "albums" },
  curated_lists: { table: "curated_lists" },
  labels: { table: "labels" },
  genres: { table: "genres" },
  users: { table: "members" }
}

/** The type's number in search_entries.kind: its place in SEARCH_TYPES, from 1. */
const kindOf = (type: SearchType) => SEARCH_TYPES.indexOf(type) + 1

/**
 * The kind being ranked: the ranking is written once for every kind, a LATERAL body run once per
 * asked kind (the plan is one type's size: planning and starting it cost a seventh of seven copies).
 */
const K = "s.kind"

/**
 * Entry `e` is public now (sql/0015: `public_from`). Only artists have entries without one (no
 * settled song): for those few, public_artists' rule from sql/0008's kept counts decides.
 */
const visible = `(search_entry_is_public(e.public_from)
    OR (e.public_from IS NULL AND e.kind = ${kindOf("artists")} AND ${artistVisibleSql("e")}))`

/**
 * Scans of a per-kind trigram index (sql/0015: `search_entries_<type>_trgm`, partial on the kind):
 * one arm per kind, each behind a one-time filter on the kind being ranked, so only its own runs.
 * `where` is the arms' condition; the arms give `e.id, e.tail, e.popularity, e.handle, e.public_from, e.kind`.
 */
const trigramArms = (where: string) =>
  SEARCH_TYPES.map((type) => {
    const k = kindOf(type)
    return `SELECT e.id, e.tail, e.popularity, e.handle, e.public_from, e.kind FROM search_entries e
        WHERE ${K} = ${k} AND e.kind = ${k} AND e.whole AND ${where}`
  }).join("\n      UNION ALL ")

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
 * (a ligature): then every name with that start. The total counts distinct rows in the first
 * 2 x bound whole names starting with the query.
 */
const shortCtes = () => {
  const head = (length: number) => `(SELECT e.id, 0.75 AS score, e.popularity, e.handle FROM search_entries e
        WHERE char_length(${Q}) = ${length} AND e.kind = ${K} AND e.whole AND left(e.tail, ${length}) = ${Q} AND ${visible}
        ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * ${N})`
  return [
    `matched AS MATERIALIZED (
    SELECT c.id, max(c.score) AS score, max(c.popularity) AS popularity, max(c.handle) AS handle FROM (
      SELECT e.id, 1 AS score, e.popularity, e.handle FROM search_entries e
        WHERE e.kind = ${K} AND e.whole AND ${equalsQuery} AND ${visible}
      UNION ALL ${head(1)}
      UNION ALL ${head(2)}
      UNION ALL SELECT e.id, 0.75, e.popularity, e.handle FROM search_entries e
        WHERE char_length(${Q}) > 2 AND e.kind = ${K} AND e.whole AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${visible}
    ) c GROUP BY c.id)`,
    `total AS MATERIALIZED (
    SELECT count(DISTINCT c.id) AS n FROM (
      SELECT e.id FROM search_entries e
      WHERE e.kind = ${K} AND e.whole AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${Q} <> '' AND ${visible}
      LIMIT ${2 * SEARCH_TOTAL_BOUND}) c)`
  ]
}

/** Entries read from a long query's range before deciding it is common. */
const RANGE_READ = 3 * SEARCH_TOTAL_BOUND

/** A long query is common for the kind: its first RANGE_READ tails hold the bound's worth of rows. */
const LARGE = "(SELECT b.large FROM big b)"

/**
 * A long query's matches. `starts`: its word-start matches (scores 1, 0.75, 0.5), one row per
 * id with its best score. `range`: the first RANGE_READ tails starting with the query
 * (index-only). When they hold fewer rows than the bound, they are all the matches (or, past
 * RANGE_READ tails, the whole range is read: only names repeating a word that often), and all are
 * ranked. When they hold more, the query is common ("cinta", "untuk"): the total is the bound,
 * and the page comes from the most popular matches of each score, read from
 * search_entries_head2_idx in popularity order within the query's first two characters and
 * stopped at 2 x limit rows: every equal name (1), the whole names starting with the query
 * (0.75: a row has at most two), the rows with a later word starting with it (0.5, one per row;
 * fewer than `limit` rows can score more when this tier reaches the page, so 2 x limit leaves
 * `limit`).
 *
 * `inside`: the query inside a word (0.25), only when the word starts found fewer than the bound
 * (past it the total is "bound or more" and no inside match can reach the page); when they found
 * at least `limit`, inside matches only count towards the bound, so the scan stops there.
 * `fuzzy`: a typo (0.25), only when nothing else matched. A row with two names (artists, labels,
 * users) may match through both, and may have matched in `starts`: one row per id.
 */
const longCtes = () => {
  const score = `CASE WHEN e.whole AND e.tail = ${Q} THEN 1 WHEN e.whole THEN 0.75 ELSE 0.5 END`
  const inRange = `e.kind = ${K} AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${Q} <> '' AND ${visible}`
  const rangeCount = "(SELECT b.tails FROM big b)"
  const startCount = "(SELECT count(*) FROM starts)"
  const popular = (whole: boolean, tierScore: string) =>
    `(SELECT e.id, ${tierScore} AS score, e.popularity, e.handle FROM search_entries e
        WHERE ${LARGE} AND e.kind = ${K} AND ${whole ? "" : "NOT "}e.whole AND left(e.tail, 2) = left(${Q}, 2)
          AND e.tail >= ${Q} AND e.tail < ${Q_END} AND ${visible}
        GROUP BY e.popularity, e.handle, e.id ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * ${N})`
  const oneRow = "SELECT e.id, 0.25 AS score, max(e.popularity) AS popularity, max(e.handle) AS handle"
  const insideGate = `NOT ${LARGE} AND ${startCount} < ${SEARCH_TOTAL_BOUND} AND ${QI} IS NOT NULL`
  const fuzzyGate = `NOT EXISTS (SELECT 1 FROM starts) AND NOT EXISTS (SELECT 1 FROM inside) AND ${FQ} IS NOT NULL`
  return [
    `range AS MATERIALIZED (
    SELECT e.id, ${score} AS score, e.popularity, e.handle FROM search_entries e WHERE ${inRange} LIMIT ${RANGE_READ})`,
    `big AS MATERIALIZED (
    SELECT count(DISTINCT r.id) >= ${SEARCH_TOTAL_BOUND} AS large, count(*) AS tails FROM range r)`,
    `starts AS MATERIALIZED (
    SELECT c.id, max(c.score) AS score, max(c.popularity) AS popularity, max(c.handle) AS handle FROM (
      SELECT * FROM range WHERE NOT ${LARGE} AND ${rangeCount} < ${RANGE_READ}
      UNION ALL SELECT e.id, ${score}, e.popularity, e.handle FROM search_entries e
        WHERE NOT ${LARGE} AND ${rangeCount} >= ${RANGE_READ} AND ${inRange}
      UNION ALL SELECT e.id, 1, e.popularity, e.handle FROM search_entries e
        WHERE ${LARGE} AND e.kind = ${K} AND e.whole AND ${equalsQuery} AND ${visible}
      UNION ALL ${popular(true, "0.75")}
      UNION ALL ${popular(false, "0.5")}
    ) c GROUP BY c.id)`,
    `inside AS MATERIALIZED (
    ${oneRow} FROM (
      ${trigramArms(`${insideGate} AND e.tail LIKE '%' || ${QI} || '%'`)}
    ) e
    WHERE NOT (e.tail LIKE ${Q} || '%' OR e.tail LIKE '% ' || ${Q} || '%') AND ${visible}
      AND NOT EXISTS (SELECT 1 FROM starts s WHERE s.id = e.id)
    GROUP BY e.id
    LIMIT (SELECT CASE WHEN c >= ${N} THEN greatest(${SEARCH_TOTAL_BOUND} - c, 0) END FROM (SELECT ${startCount} AS c) x))`,
    `fuzzy AS MATERIALIZED (
    ${oneRow} FROM (
      ${trigramArms(`${fuzzyGate} AND ${FQ} <% e.tail`)}
    ) e
    WHERE ${visible} GROUP BY e.id)`,
    `matched AS (SELECT * FROM starts UNION ALL SELECT * FROM inside UNION ALL SELECT * FROM fuzzy)`,
    `total AS MATERIALIZED (
    SELECT CASE WHEN ${LARGE} THEN ${SEARCH_TOTAL_BOUND} ELSE (SELECT count(*) FROM matched) END AS n)`
  ]
}

/**
 * Every asked kind ranked by the one LATERAL body: its best `limit` rows, each with the kind's
 * total; a kind without matches has no row (its total is 0).
 */
const rankedCte = (kinds: ReadonlyArray<number>, short: boolean) => `ranked AS MATERIALIZED (
  SELECT s.kind, r.id, r.score, r.popularity, r.handle, r.total
  FROM term CROSS JOIN (VALUES ${kinds.map((k) => `(${k})`).join(", ")}) s(kind) CROSS JOIN LATERAL (
    WITH ${(short ? shortCtes() : longCtes()).join(",\n  ")}
    SELECT m.id, m.score, m.popularity, m.handle, (SELECT t.n FROM total t) AS total
    FROM matched m ORDER BY m.score DESC, m.popularity DESC, m.handle, m.id LIMIT ${N}) r)`

/** One type's section: its hits' JSON, built by Postgres from the type's table, and its bounded total. */
const sectionSql = (type: SearchType) => {
  const source = sources[type]
  const k = kindOf(type)
  const shapes = searchTypeShapes[type]
  const section = shapes.section.json(
    `(SELECT ${jsonArraySql(shapes.hit.json("x", "t.score"), "t.score DESC, t.popularity DESC, t.handle, t.id")}
              FROM ranked t JOIN ${source.table} x ON x.id = t.id WHERE t.kind = ${k})`,
    `least(coalesce((SELECT max(t.total) FROM ranked t WHERE t.kind = ${k}), 0), ${SEARCH_TOTAL_BOUND})`
  )
  return `SELECT ${k} AS kind, ${section}::text AS section`
}

export interface SearchParams {
  readonly q: string
  readonly fuzzy: boolean
  readonly limit: number
  readonly types: ReadonlyArray<SearchType>
}

/**
 * The statement's one parameter: the query as typed, "t" when it may be matched with a typo
 * (else null), and the limit, as a text array (src/Database/Statements.ts prepares one key).
 */
type SearchKey = readonly [q: string, fuzzy: "t" | null, limit: string]

/**
 * Every asked type's section in one statement of fixed text (one text per set of types and
 * short or not), ranked from search_entries (sql/0015) and built by Postgres as JSON text.
 * `term` folds the query once: `fold_name` is not inlined (it calls the STABLE `unaccent`), so
 * each call site is parsed and planned at every execution; OFFSET 0 keeps the folded query from
 * being copied into each of its uses.
 */
export const searchSql = (sql: SqlClient.SqlClient, types: ReadonlyArray<SearchType>, short: boolean) => {
  const ordered = SEARCH_TYPES.filter((type) => types.includes(type))
  return (key: SearchKey) =>
    sql<{ kind: number; section: string }>`
    WITH term AS MATERIALIZED (
      SELECT f.q, CASE WHEN char_length(f.q) >= 3 THEN f.q END AS qi, CASE WHEN f.p[2] IS NOT NULL THEN f.q END AS fq,
             f.q || chr(1114111) AS q_end, f.p[3]::int AS n
      FROM (SELECT fold_name(p[1]) AS q, p FROM (SELECT ${key}::text[] AS p) k OFFSET 0) f),
    ${lit(rankedCte(ordered.map(kindOf), short))}
    ${lit(ordered.map(sectionSql).join("\n    UNION ALL "))}`
}

export class SearchRepo extends Effect.Service<SearchRepo>()("catalogue/SearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Statements
    /** Prepared on first use: one per set of types and short or not (at most 254). */
    const prepared = new Map<string, Prepared<SearchKey, { kind: number; section: string }>>()
    const statementOf = (types: ReadonlyArray<SearchType>, short: boolean) => {
      const name = `${short}:${SEARCH_TYPES.filter((type) => types.includes(type)).join(",")}`
      let statement = prepared.get(name)
      if (statement === undefined) {
        statement = statements.prepare(searchSql(sql, types, short))
        prepared.set(name, statement)
      }
      return statement
    }
    /** The asked types' sections as JSON text, by type. */
    const search = (params: SearchParams) => {
      const short = [...params.q].length <= SHORT_QUERY_MAX_LENGTH
      const key: SearchKey = [params.q, params.fuzzy ? "t" : null, String(params.limit)]
      return statements.run(statementOf(params.types, short), key).pipe(
        Effect.map((rows) => new Map(rows.map((row) => [SEARCH_TYPES[row.kind - 1]!, row.section] as const))),
        Effect.orDie,
        withSpan("SearchRepo.search")
      )
    }
    return { search } as const
  })
}) {}
