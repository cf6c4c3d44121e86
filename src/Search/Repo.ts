import { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import { artistSongCountSql, artistSummaryPairsSql } from "../Domain/Artist.js"
import { curatedListItemCountSql, curatedListSummaryPairsSql } from "../Domain/CuratedListSummary.js"
import { listAlbumEntryJsonSql, PLACEHOLDER, songSummaryPairsSql } from "../Domain/Song.js"
import { SEARCH_TYPES, type SearchType } from "./Api.js"

const lit = Statement.unsafeFragment

/** The folded query and the folded fuzzy query ('' when too short), from the statement's `term`. */
const Q = "(SELECT q FROM term)"
const FQ = "(SELECT fq FROM term)"

/** A row whose folded `key` contains the query, or is within a typo of it (trigram indexes). */
const matches = (key: string) => `(${key} LIKE '%' || ${Q} || '%' OR ${FQ} <% ${key})`
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
  readonly source: string
  readonly keys: ReadonlyArray<string>
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
    keys: ["x.search_title"],
    popularity: "coalesce(x.vidsvc_views, 0)",
    hit: `json_build_object(${songSummaryPairsSql("x")}, 'score', t.score)`,
    tie: "x.id"
  },
  artists: {
    source: "public_artists x",
    keys: ["x.search_name", "x.search_full_name"],
    popularity: artistSongCountSql("x"),
    hit: `json_build_object(${artistSummaryPairsSql("x", "t.popularity")}, 'score', t.score)`,
    tie: "x.id"
  },
  albums: {
    source: "public_albums x",
    keys: ["x.search_title"],
    popularity: "(SELECT count(*) FROM album_tracks at JOIN public_songs ats ON ats.id = at.song_id WHERE at.album_id = x.id)",
    hit: withScore(listAlbumEntryJsonSql("x", "public")),
    tie: "x.id"
  },
  curated_lists: {
    source: "public_curated_lists x",
    keys: ["x.search_title"],
    popularity: curatedListItemCountSql("x"),
    hit: `json_build_object(${curatedListSummaryPairsSql("x")}, 'score', t.score)`,
    tie: "x.id"
  },
  labels: {
    source: "labels x",
    keys: ["x.search_name", "x.search_former_name"],
    popularity: "(SELECT count(*) FROM song_labels sl JOIN public_songs ls ON ls.id = sl.song_id WHERE sl.label_id = x.id)",
    hit: `json_build_object(
      'id', x.id, 'name', x.name, 'formerly_known_as', coalesce(x.formerly_known_as, ''), 'slug', x.slug,
      'song_count', t.popularity,
      'album_count', (SELECT count(*) FROM public_albums la WHERE la.label_id = x.id),
      'score', t.score)`,
    tie: "x.id"
  },
  genres: {
    source: "genres x",
    keys: ["x.search_title"],
    popularity: "(SELECT count(*) FROM song_genres sg JOIN public_songs gs ON gs.id = sg.song_id WHERE sg.genre_id = x.id)",
    hit: `json_build_object(
      'id', x.id, 'slug', x.slug, 'title', x.title, 'color', x.color,
      'image_url', asset_url(x.image_key, '${PLACEHOLDER.genreImage}'), 'song_count', t.popularity,
      'score', t.score)`,
    tie: "x.id"
  },
  users: {
    source: "public_members x",
    keys: ["x.search_name", "x.search_username"],
    popularity:
      "(SELECT count(*) FROM contributions uc JOIN public_songs us ON us.id = uc.song_id WHERE uc.member_id = x.id)",
    hit: `json_build_object(
      'username', x.username, 'name', x.name, 'avatar_url', asset_url(x.avatar_key, '${PLACEHOLDER.avatar}'),
      'is_fan', x.kind = 'fan', 'is_artist', x.kind = 'artist', 'is_group', x.kind = 'group',
      'joined_at', iso_time(x.joined_at), 'contribution_count', t.popularity,
      'score', t.score)`,
    // public handles are unique (case-insensitively): no internal id decides an order users can see
    tie: "lower(x.username)"
  }
}

/** `{items, total}` of one type as JSON text: every match counted, the best `limit` shown. */
const sectionSql = ({ hit, keys, popularity, source, tie }: SearchSource) => `(
  WITH matched AS (
    SELECT x.id, ${score(...keys)} AS score, ${popularity} AS popularity, ${tie} AS tie
    FROM ${source}
    WHERE ${Q} <> '' AND (${keys.map(matches).join(" OR ")})),
  ranked AS (
    SELECT * FROM matched ORDER BY score DESC, popularity DESC, tie LIMIT (SELECT n FROM term))
  SELECT json_build_object(
    'items', (SELECT coalesce(json_agg(${hit} ORDER BY t.score DESC, t.popularity DESC, t.tie), '[]'::json)
              FROM ranked t JOIN ${source} ON x.id = t.id),
    'total', (SELECT count(*) FROM matched))::text)`

export class SearchRepo extends Effect.Service<SearchRepo>()("catalogue/SearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Every asked type in one statement. The statement text is always the same: a type not asked
     * is skipped by its CASE (its sub-plans never run), so one prepared plan serves every request.
     */
    const search = (params: {
      readonly q: string
      readonly fuzzy: boolean
      readonly limit: number
      readonly types: ReadonlyArray<SearchType>
    }) => {
      const asked = (type: SearchType) => params.types.includes(type)
      const columns = SEARCH_TYPES.map(
        (type) => sql`CASE WHEN ${asked(type)}::boolean THEN ${lit(sectionSql(sources[type]))} END AS ${lit(type)}`
      )
      return sql<Record<SearchType, string | null>>`
        WITH term AS MATERIALIZED (
          SELECT fold_name(${params.q}::text) AS q, fold_name(${params.fuzzy ? params.q : ""}::text) AS fq,
                 ${params.limit}::int AS n)
        SELECT ${sql.csv(columns)}`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie,
        Effect.withSpan("SearchRepo.search")
      )
    }

    return { search } as const
  })
}) {}
