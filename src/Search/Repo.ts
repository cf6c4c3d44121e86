import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import { artistSongCountSql, artistSummaryFieldsSql, artistVisibleSql } from "../Domain/Artist.js"
import { curatedListItemCountSql, curatedListSummaryFieldsSql } from "../Domain/CuratedListSummary.js"
import { type JsonFields, jsonArraySql, jsonObjectSql } from "../Domain/JsonSql.js"
import { listAlbumEntryFieldsSql, PLACEHOLDER, songSummaryFieldsSql } from "../Domain/Song.js"
import type { SearchType } from "./Api.js"
import { withSpan } from "../Spans.js"

const lit = Statement.unsafeFragment

/**
 * From the statement's `term`: the folded query; the same when it may match inside a word (3+
 * characters, else null: one or two letters inside words match nearly everything); the folded
 * fuzzy query (null when too short for typo tolerance: null keeps the trigram index arm empty);
 * and the end of the query's prefix range in byte order (short queries, see shortMatches).
 */
const Q = "(SELECT q FROM term)"
const QI = "(SELECT qi FROM term)"
const FQ = "(SELECT fq FROM term)"
const Q_END = "(SELECT q_end FROM term)"

/** Queries of this many characters or fewer match names that start with them (sql/0007). */
export const SHORT_QUERY_MAX_LENGTH = 2

/** A row whose folded `key` starts with the query, has a word starting with it, or has it inside a word. */
const matches = (key: string) => `(${key} LIKE ${Q} || '%' OR ${key} LIKE '% ' || ${Q} || '%' OR ${key} LIKE '%' || ${QI} || '%')`
/** A row whose folded `key` starts with a short query: a btree range in byte order (sql/0007). */
const startsWith = (key: string) => `(${key} COLLATE "C" >= ${Q} AND ${key} COLLATE "C" < ${Q_END})`
const fuzzyMatches = (key: string) => `${FQ} <% ${key}`
const score = (...keys: ReadonlyArray<string>) =>
  keys.length === 1
    ? `search_score(${keys[0]}, ${Q}, NULL)`
    : `greatest(${keys.map((key) => `search_score(${key}, ${Q}, NULL)`).join(", ")})`
const prefixScore = (...keys: ReadonlyArray<string>) =>
  `CASE WHEN ${keys.map((key) => `${key} = ${Q}`).join(" OR ")} THEN 1 ELSE 0.75 END`

/**
 * One type of search result, all fixed SQL text: the rows that may be found (`source`, with
 * its alias `x`), their folded names, what makes one more popular than another, and the JSON of
 * one hit (which may read the ranked row `t`: t.score, t.popularity).
 */
interface SearchSource {
  /** the rows, alias `x`; `visible` picks the public ones */
  readonly source: string
  /** a condition on `x`: the row is public (true when `source` is already a public view) */
  readonly visible: string
  /** the table behind `source`: rows found are read again from it by id */
  readonly table: string
  readonly keys: ReadonlyArray<string>
  /**
   * orders hits of equal score; computed only for the rows that can make the page (see sectionSql).
   * Kept live counts (sql/0003, sql/0006), an index probe each: hundreds of rows may tie on score,
   * and the public counts subtract scheduled rows at ~1 ms a row. The counts shown are the public ones.
   */
  readonly popularity: string
  /** popularity reads more of the row than its id: computed with the match (songs: the index carries it) */
  readonly popularityIsColumn?: boolean
  /** the hit's JSON; `x` is the row, `t.score` its score */
  readonly hit: string
  /** ties after score and popularity; unique */
  readonly tie: string
}

/** A hit: the type's fields, then its `score`. */
const withScore = (fields: JsonFields) => jsonObjectSql({ ...fields, score: "t.score" })

/** public_artists' rule from sql/0008's kept counts: one index probe per candidate. */
const visibleArtist = artistVisibleSql("x")

const sources: Record<SearchType, SearchSource> = {
  songs: {
    source: "public_songs x",
    visible: "true",
    table: "songs x",
    keys: ["x.search_title"],
    popularity: "coalesce(x.vidsvc_views, 0)",
    popularityIsColumn: true,
    hit: withScore(songSummaryFieldsSql("x")),
    tie: "x.id"
  },
  artists: {
    // public_artists probes every candidate's credits; sql/0008's kept counts decide the same
    source: "artists x",
    visible: visibleArtist,
    table: "artists x",
    keys: ["x.search_name", "x.search_full_name"],
    // credits on live songs (kept count): counting only public songs costs a join per credit, and changes little
    popularity: "(SELECT ac.live_credits FROM artist_counts ac WHERE ac.artist_id = x.id)",
    hit: withScore(artistSummaryFieldsSql("x", artistSongCountSql("x"))),
    tie: "x.id"
  },
  albums: {
    source: "public_albums x",
    visible: "true",
    table: "albums x",
    keys: ["x.search_title"],
    popularity: "(SELECT count(*) FROM album_tracks at JOIN public_songs ats ON ats.id = at.song_id WHERE at.album_id = x.id)",
    hit: withScore(listAlbumEntryFieldsSql("x", "public")),
    tie: "x.id"
  },
  curated_lists: {
    source: "public_curated_lists x",
    visible: "true",
    table: "curated_lists x",
    keys: ["x.search_title"],
    popularity: curatedListItemCountSql("x"),
    popularityIsColumn: true,
    hit: withScore(curatedListSummaryFieldsSql("x")),
    tie: "x.id"
  },
  labels: {
    source: "labels x",
    visible: "true",
    table: "labels x",
    keys: ["x.search_name", "x.search_former_name"],
    popularity: "(SELECT lc.live_songs FROM label_counts lc WHERE lc.label_id = x.id)",
    hit: withScore({
      id: "x.id",
      name: "x.name",
      formerly_known_as: "coalesce(x.formerly_known_as, '')",
      slug: "x.slug",
      song_count: "coalesce((SELECT lc.song_count FROM public_label_counts lc WHERE lc.label_id = x.id), 0)",
      album_count: "coalesce((SELECT lc.album_count FROM public_label_counts lc WHERE lc.label_id = x.id), 0)"
    }),
    tie: "x.id"
  },
  genres: {
    source: "genres x",
    visible: "true",
    table: "genres x",
    keys: ["x.search_title"],
    popularity: "(SELECT gc.live_songs FROM genre_counts gc WHERE gc.genre_id = x.id)",
    hit: withScore({
      id: "x.id",
      slug: "x.slug",
      title: "x.title",
      color: "x.color",
      image_url: `asset_url(x.image_key, '${PLACEHOLDER.genreImage}')`,
      song_count: "coalesce(public_genre_song_count(x.id), 0)"
    }),
    tie: "x.id"
  },
  users: {
    source: "public_members x",
    visible: "true",
    table: "members x",
    keys: ["x.search_name", "x.search_username"],
    popularity: "(SELECT mc.live FROM member_contribution_counts mc WHERE mc.member_id = x.id)",
    hit: withScore({
      username: "x.username",
      name: "x.name",
      avatar_url: `asset_url(x.avatar_key, '${PLACEHOLDER.avatar}')`,
      is_fan: "x.kind = 'fan'",
      is_artist: "x.kind = 'artist'",
      is_group: "x.kind = 'group'",
      joined_at: "iso_time(x.joined_at)",
      contribution_count:
        "coalesce((SELECT mc.contribution_count FROM public_member_contributions mc WHERE mc.member_id = x.id), 0)"
    }),
    // public handles are unique (case-insensitively): no internal id decides an order users can see
    tie: "lower(x.username)"
  }
}

/**
 * `{items, total}` of one type as JSON text: every match counted, the best `limit` shown.
 * Typos are looked for only when nothing matches otherwise (a fuzzy arm rechecks every row
 * sharing trigrams with the query: hundreds of rows at ~40 us each for a multi-word query).
 * Scores are cheap; popularity may not be (a count per row), so it is computed only for rows
 * scoring at least the limit-th best score: the only rows it can still order into the page.
 */
const sectionSql = (
  { hit, keys, popularity, popularityIsColumn, source, table, tie, visible }: SearchSource,
  short: boolean
) => {
  const matchedPopularity = popularityIsColumn === true ? popularity : "NULL::bigint"
  const rankedPopularity = popularityIsColumn === true ? "x.popularity" : popularity
  const found = short
    ? `exact AS (
    SELECT x.id, ${prefixScore(...keys)} AS score, ${matchedPopularity} AS popularity, ${tie} AS tie
    FROM ${source}
    WHERE ${Q} <> '' AND (${keys.map(startsWith).join(" OR ")}) AND ${visible}),
  matched AS (SELECT * FROM exact)`
    : `exact AS MATERIALIZED (
    SELECT x.id, ${score(...keys)} AS score, ${matchedPopularity} AS popularity, ${tie} AS tie
    FROM ${source}
    WHERE ${Q} <> '' AND (${keys.map(matches).join(" OR ")}) AND ${visible}),
  fuzzy AS (
    SELECT x.id, 0.25 AS score, ${matchedPopularity} AS popularity, ${tie} AS tie
    FROM ${source}
    WHERE NOT EXISTS (SELECT 1 FROM exact) AND (${keys.map(fuzzyMatches).join(" OR ")}) AND ${visible}),
  matched AS (SELECT * FROM exact UNION ALL SELECT * FROM fuzzy)`
  return `${found},
  ranked AS (
    SELECT x.id, x.score, ${rankedPopularity} AS popularity, x.tie
    FROM matched x
    WHERE x.score >= coalesce(
      (SELECT score FROM matched ORDER BY score DESC LIMIT 1 OFFSET (SELECT n FROM term) - 1), 0)
    ORDER BY x.score DESC, popularity DESC NULLS LAST, x.tie LIMIT (SELECT n FROM term))
  SELECT ${
    jsonObjectSql({
      items: `(SELECT ${jsonArraySql(hit, "t.score DESC, t.popularity DESC NULLS LAST, t.tie")}
              FROM ranked t JOIN ${table} ON x.id = t.id)`,
      total: "(SELECT count(*) FROM matched)"
    })
  }::text AS section`
}

export interface SearchParams {
  readonly q: string
  readonly fuzzy: boolean
  readonly limit: number
  readonly types: ReadonlyArray<SearchType>
}

/**
 * One type's section: a small statement of fixed text (two per type: short or not), cheap to
 * plan, so the asked types run side by side on the pool.
 */
export const sectionStatement = (sql: SqlClient.SqlClient, type: SearchType, params: SearchParams) => {
  const short = [...params.q].length <= SHORT_QUERY_MAX_LENGTH
  return sql<{ section: string }>`
    WITH term AS MATERIALIZED (
      SELECT f.q, CASE WHEN char_length(f.q) >= 3 THEN f.q END AS qi, fold_name(${params.fuzzy ? params.q : null}::text) AS fq,
             f.q || chr(1114111) AS q_end, ${params.limit}::int AS n
      FROM (SELECT fold_name(${params.q}::text) AS q) f),
    ${lit(sectionSql(sources[type], short))}`
}

export class SearchRepo extends Effect.Service<SearchRepo>()("catalogue/SearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** The asked types' sections as JSON text, in the order asked. */
    const search = (params: SearchParams) =>
      Effect.forEach(
        params.types,
        (type) => Effect.map(sectionStatement(sql, type, params), (rows) => [type, rows[0]?.section ?? null] as const),
        { concurrency: "unbounded" }
      ).pipe(
        Effect.map((sections) => new Map(sections)),
        Effect.orDie,
        withSpan("SearchRepo.search")
      )
    return { search } as const
  })
}) {}
