import { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import { artistSongCountSql, artistSummaryPairsSql } from "../Domain/Artist.js"
import { curatedListItemCountSql, curatedListSummaryPairsSql } from "../Domain/CuratedListSummary.js"
import { listAlbumEntryJsonSql, PLACEHOLDER, songSummaryPairsSql } from "../Domain/Song.js"
import { SEARCH_TYPES, type SearchType } from "./Api.js"

const lit = Statement.unsafeFragment

/**
 * From the statement's `term`: the folded query; the same when it may match inside a word (3+
 * characters, else null: one or two letters inside words match nearly everything); and the
 * folded fuzzy query (null when too short for typo tolerance: an empty query would make the
 * trigram index read itself whole; null makes the index arm empty at once).
 */
const Q = "(SELECT q FROM term)"
const QI = "(SELECT qi FROM term)"
const FQ = "(SELECT fq FROM term)"

/** A row whose folded `key` matches (each arm can use the key's trigram index). */
const matches = (key: string) =>
  `(${key} LIKE ${Q} || '%' OR ${key} LIKE '% ' || ${Q} || '%' OR ${key} LIKE '%' || ${QI} || '%' OR ${FQ} <% ${key})`
const score = (...keys: ReadonlyArray<string>) =>
  keys.length === 1
    ? `search_score(${keys[0]}, ${Q}, ${FQ})`
    : `greatest(${keys.map((key) => `search_score(${key}, ${Q}, ${FQ})`).join(", ")})`

/**
 * One type of search result, all fixed SQL text: the rows that may be found (`source`, with
 * its alias `x`), their folded names, what makes one more popular than another, and the JSON of
 * one hit (which may read the ranked row `t`: t.score, t.popularity).
 */
interface SearchSource {
  /** the visible rows */
  readonly source: string
  /** the table behind `source`: rows found visible are read again from it by id */
  readonly table: string
  readonly keys: ReadonlyArray<string>
  /** orders hits of equal score; computed only for the rows that can make the page (see sectionSql) */
  readonly popularity: string
  /** the hit's JSON; `x` is the row, `t.score` its score */
  readonly hit: string
  /** ties after score and popularity; unique */
  readonly tie: string
}

const withScore = (json: string) => `(left((${json})::text, -1) || ', "score" : ' || t.score || '}')::json`

const sources: Record<SearchType, SearchSource> = {
  songs: {
    source: "public_songs x",
    table: "songs x",
    keys: ["x.search_title"],
    popularity: "coalesce(x.vidsvc_views, 0)",
    hit: `json_build_object(${songSummaryPairsSql("x")}, 'score', t.score)`,
    tie: "x.id"
  },
  artists: {
    source: "public_artists x",
    table: "artists x",
    keys: ["x.search_name", "x.search_full_name"],
    // credits of any song: counting only public songs costs a join per credit, and changes little
    popularity: "(SELECT count(*) FROM credits ac WHERE ac.artist_id = x.id)",
    hit: `json_build_object(${artistSummaryPairsSql("x", artistSongCountSql("x"))}, 'score', t.score)`,
    tie: "x.id"
  },
  albums: {
    source: "public_albums x",
    table: "albums x",
    keys: ["x.search_title"],
    popularity: "(SELECT count(*) FROM album_tracks at JOIN public_songs ats ON ats.id = at.song_id WHERE at.album_id = x.id)",
    hit: withScore(listAlbumEntryJsonSql("x", "public")),
    tie: "x.id"
  },
  curated_lists: {
    source: "public_curated_lists x",
    table: "curated_lists x",
    keys: ["x.search_title"],
    popularity: curatedListItemCountSql("x"),
    hit: `json_build_object(${curatedListSummaryPairsSql("x")}, 'score', t.score)`,
    tie: "x.id"
  },
  labels: {
    source: "labels x",
    table: "labels x",
    keys: ["x.search_name", "x.search_former_name"],
    popularity: "(SELECT lc.song_count FROM public_label_counts lc WHERE lc.label_id = x.id)",
    hit: `json_build_object(
      'id', x.id, 'name', x.name, 'formerly_known_as', coalesce(x.formerly_known_as, ''), 'slug', x.slug,
      'song_count', coalesce(t.popularity, 0),
      'album_count', coalesce((SELECT lc.album_count FROM public_label_counts lc WHERE lc.label_id = x.id), 0),
      'score', t.score)`,
    tie: "x.id"
  },
  genres: {
    source: "genres x",
    table: "genres x",
    keys: ["x.search_title"],
    popularity: "(SELECT gc.song_count FROM public_genre_counts gc WHERE gc.genre_id = x.id)",
    hit: `json_build_object(
      'id', x.id, 'slug', x.slug, 'title', x.title, 'color', x.color,
      'image_url', asset_url(x.image_key, '${PLACEHOLDER.genreImage}'), 'song_count', coalesce(t.popularity, 0),
      'score', t.score)`,
    tie: "x.id"
  },
  users: {
    source: "public_members x",
    table: "members x",
    keys: ["x.search_name", "x.search_username"],
    popularity: "(SELECT mc.contribution_count FROM public_member_contribution_counts mc WHERE mc.member_id = x.id)",
    hit: `json_build_object(
      'username', x.username, 'name', x.name, 'avatar_url', asset_url(x.avatar_key, '${PLACEHOLDER.avatar}'),
      'is_fan', x.kind = 'fan', 'is_artist', x.kind = 'artist', 'is_group', x.kind = 'group',
      'joined_at', iso_time(x.joined_at), 'contribution_count', coalesce(t.popularity, 0),
      'score', t.score)`,
    // public handles are unique (case-insensitively): no internal id decides an order users can see
    tie: "lower(x.username)"
  }
}

/**
 * `{items, total}` of one type as JSON text: every match counted, the best `limit` shown.
 * Scores are cheap; popularity may not be (a count per row), so it is computed only for rows
 * scoring at least the limit-th best score: the only rows it can still order into the page.
 */
const sectionSql = ({ hit, keys, popularity, source, table, tie }: SearchSource) => `(
  WITH matched AS (
    SELECT x.id, ${score(...keys)} AS score
    FROM ${source}
    WHERE ${Q} <> '' AND (${keys.map(matches).join(" OR ")})),
  ranked AS (
    SELECT m.id, m.score, ${popularity} AS popularity, ${tie} AS tie
    FROM matched m JOIN ${table} ON x.id = m.id
    WHERE m.score >= coalesce(
      (SELECT score FROM matched ORDER BY score DESC LIMIT 1 OFFSET (SELECT n FROM term) - 1), 0)
    ORDER BY m.score DESC, popularity DESC NULLS LAST, tie LIMIT (SELECT n FROM term))
  SELECT json_build_object(
    'items', (SELECT coalesce(json_agg(${hit} ORDER BY t.score DESC, t.popularity DESC NULLS LAST, t.tie), '[]'::json)
              FROM ranked t JOIN ${table} ON x.id = t.id),
    'total', (SELECT count(*) FROM matched))::text)`

export interface SearchParams {
  readonly q: string
  readonly fuzzy: boolean
  readonly limit: number
  readonly types: ReadonlyArray<SearchType>
}

/**
 * Every asked type in one statement. The statement text is always the same: a type not asked
 * is skipped by its CASE (its sub-plans never run), so one prepared plan serves every request.
 */
export const searchStatement = (sql: SqlClient.SqlClient, params: SearchParams) => {
  const asked = (type: SearchType) => params.types.includes(type)
  const columns = SEARCH_TYPES.map(
    (type) => sql`CASE WHEN ${asked(type)}::boolean THEN ${lit(sectionSql(sources[type]))} END AS ${lit(type)}`
  )
  return sql<Record<SearchType, string | null>>`
    WITH term AS MATERIALIZED (
      SELECT f.q, CASE WHEN char_length(f.q) >= 3 THEN f.q END AS qi, fold_name(${params.fuzzy ? params.q : null}::text) AS fq,
             ${params.limit}::int AS n
      FROM (SELECT fold_name(${params.q}::text) AS q) f)
    SELECT ${sql.csv(columns)}`
}

export class SearchRepo extends Effect.Service<SearchRepo>()("catalogue/SearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const search = (params: SearchParams) =>
      searchStatement(sql, params).pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie,
        Effect.withSpan("SearchRepo.search")
      )
    return { search } as const
  })
}) {}
