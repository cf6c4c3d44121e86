import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { SEARCH_MAX_WORDS, SEARCH_TOTAL_BOUND, SEARCH_TYPO_MAX_LENGTH } from "../Contract/SearchHit.js"
import { searchTypeShapes } from "../Shapes/SearchHit.js"
import { SEARCH_TYPES, type SearchType } from "./Api.js"
import { type Prepared, Statements } from "../Database.js"
import { withSpan } from "../Spans.js"


/** One type of search result: the table its hits are read from (alias `x`); its hit and section shapes are in src/Shapes/SearchHit.ts. */
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

/**
 * Every asked kind ranked by search_kind_page (sql/definitions/5_search.sql) from the query's terms,
 * which are read once for all kinds. A kind without matches has no row (its total is 0).
 */
const hitsCte = (types: ReadonlyArray<SearchType>) =>
  `hits AS MATERIALIZED (
    SELECT s.type, r.* FROM term CROSS JOIN (VALUES ${types.map((type) => `('${type}')`).join(", ")}) s(type)
    CROSS JOIN LATERAL search_kind_page(search_kind(s.type), search_kind_terms(search_kind(s.type), term.terms), term.typed, term.n, ${SEARCH_TOTAL_BOUND}) r)`

/** One type's section: its hits' JSON, built by Postgres from the type's table, and its bounded total. */
const sectionSql = (type: SearchType) => {
  const source = sources[type]
  const shapes = searchTypeShapes[type]
  const section = shapes.section.json(
    `(SELECT ${jsonArraySql(shapes.hit.json("x", "t.score"), "t.score DESC, t.popularity DESC, t.handle, t.id")}
              FROM hits t JOIN ${source.table} x ON x.id = t.id WHERE t.type = '${type}')`,
    `least(coalesce((SELECT max(t.total) FROM hits t WHERE t.type = '${type}'), 0), ${SEARCH_TOTAL_BOUND})`
  )
  return `SELECT '${type}' AS type, ${section}::text AS section`
}

export interface SearchParams {
  readonly q: string
  readonly limit: number
  readonly types: ReadonlyArray<SearchType>
}

/**
 * The statement's one parameter: the query as typed and the limit, as a text array
 * (src/Database/Statements.ts prepares one key).
 */
type SearchKey = readonly [q: string, limit: string]

/**
 * Every asked type's section in one statement of fixed text (`$1`: the SearchKey) (one text per set of types), ranked
 * from the search tables and built by Postgres as JSON text. `term` reads the query's terms once
 * (its words, their typos, their other spellings and the last word as a prefix) and its words as typed,
 * repeats kept; OFFSET 0 keeps them from being read
 * again for each kind; it keeps the first SEARCH_MAX_WORDS words and looks up typos of words up to
 * SEARCH_TYPO_MAX_LENGTH characters.
 */
export const searchText = (types: ReadonlyArray<SearchType>) => {
  const ordered = SEARCH_TYPES.filter((type) => types.includes(type))
  return `
    WITH term AS MATERIALIZED (
      SELECT search_query_terms(p[1], ${SEARCH_MAX_WORDS}, ${SEARCH_TYPO_MAX_LENGTH}) AS terms,
             search_query_phrase(p[1], ${SEARCH_MAX_WORDS}) AS typed, p[2]::int AS n FROM (SELECT $1::text[] AS p) k OFFSET 0),
    ${hitsCte(ordered)}
    ${ordered.map(sectionSql).join("\n    UNION ALL ")}`
}

export const searchSql = (sql: SqlClient.SqlClient, types: ReadonlyArray<SearchType>) => {
  const text = searchText(types)
  return (key: SearchKey) => sql.unsafe<{ type: SearchType; section: string }>(text, [key])
}

export class SearchRepo extends Context.Service<SearchRepo>()("catalogue/SearchRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Statements
    /** Prepared on first use: one per set of types (at most 127). */
    const prepared = new Map<string, Prepared<SearchKey, { type: SearchType; section: string }>>()
    const statementOf = (types: ReadonlyArray<SearchType>) => {
      const name = SEARCH_TYPES.filter((type) => types.includes(type)).join(",")
      let statement = prepared.get(name)
      if (statement === undefined) {
        statement = statements.prepare(searchSql(sql, types))
        prepared.set(name, statement)
      }
      return statement
    }
    /** The asked types' sections as JSON text, by type. */
    const search = (params: SearchParams) => {
      const key: SearchKey = [params.q, String(params.limit)]
      return statements.run(statementOf(params.types), key).pipe(
        Effect.map((rows) => new Map(rows.map((row) => [row.type, row.section] as const))),
        withSpan("SearchRepo.search")
      )
    }
    return { search } as const
  })
}) {
  static readonly layer = Layer.effect(SearchRepo, SearchRepo.make)
}
