import * as SqlClient from "@effect/sql/SqlClient"
import { batchLookup } from "../Domain/Batch.js"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { artistIdentityFieldsSql, artistSongCountSql, artistSummaryJsonSql, artistVisibleSql } from "../Domain/Artist.js"
import type { KeyType, SortKey } from "../Domain/Cursor.js"
import { jsonArraySql, jsonObjectSql } from "../Domain/JsonSql.js"
import type { PageRequest } from "../Domain/Pagination.js"
import { albumArtistJsonSql, listAlbumEntryJsonSql, songSummaryJsonSql } from "../Domain/Song.js"
import type { ArtistSongRole, ArtistSort } from "./Api.js"
import { withSpan } from "../Spans.js"

/** One page of a list as Postgres built it: the items' JSON and the last row's sort key. */
export interface JsonPage {
  readonly total: number
  readonly items: string
  readonly served: number
  readonly lastKey: SortKey | undefined
}

interface PageRow {
  readonly total: number
  readonly items: string
  readonly served: number
  readonly last_key: string | null
}

const toPage = (row: PageRow | undefined): JsonPage => ({
  total: row?.total ?? 0,
  items: row?.items ?? "[]",
  served: row?.served ?? 0,
  lastKey: row?.last_key ? (JSON.parse(row.last_key) as SortKey) : undefined
})

/**
 * Each list's cursor key (sort value, then the id), checked by the cursor codec before a
 * statement sees it: name and album dates compare as text, song counts and release dates by type.
 */
export const artistCursorKeys = {
  name: ["text", "id"],
  songs: ["int", "id"],
  artistSongs: ["date", "id"],
  artistAlbums: ["dateOrEmpty", "id"]
} as const satisfies Record<string, readonly [KeyType, KeyType]>

/** The cursor's key as SQL parameters: nulls without a cursor. */
const keyPair = (page: PageRequest) => ({ value: page.after?.[0] ?? null, id: page.after?.[1] ?? null })

const lit = Statement.unsafeFragment

/** A namesake hint for row `h` of the hints below. */
const namesakeHintJsonSql = jsonArraySql(
  jsonObjectSql({
    id: "h.id",
    disambiguator: `coalesce(nullif(btrim(h.disambiguator), ''),
      h.role || ', ' || h.song || CASE WHEN h.song_year > 0 THEN ' (' || h.song_year || ')' ELSE '' END)`,
    role: "h.role",
    song: "h.song",
    song_year: "h.song_year"
  }),
  "h.ord"
)

/** An artist with this many public songs (any role) has its songs listed by walking the catalogue's index. */
const DENSE_ARTIST_SONGS = 3000

export class ArtistsRepo extends Effect.Service<ArtistsRepo>()("catalogue/ArtistsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * The albums listed under an artist: albums naming the artist, and albums without named
     * artists on which the artist performs a public song (whose artists are resolved from those
     * songs, as in every list album entry).
     */
    const albumsOf = (artistId: number) => sql`
      SELECT al.id, coalesce(iso_date(al.released_at), '') AS sort_date
      FROM public_albums al
      WHERE al.id IN (
          SELECT aa.album_id FROM album_artists aa WHERE aa.artist_id = ${artistId}
          UNION
          SELECT t.album_id
          FROM credits c
          JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
          JOIN public_songs s ON s.id = c.song_id
          JOIN album_tracks t ON t.song_id = c.song_id
          WHERE c.artist_id = ${artistId})
        AND (EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = al.id AND aa.artist_id = ${artistId})
             OR NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = al.id))`

    /**
     * Visible artists with q: the name matches (trigram indexes of sql/0004) whose kept
     * counts (sql/0008) say they are visible; cost grows with the matches. Without q: pages of an
     * index (artists_name_idx, or sql/0008's kept song counts) and a kept total.
     */
    const matchingSql = (q: string) => sql`
      SELECT a.id, a.name FROM artists a
      WHERE (SELECT fold_name(${q}::text)) <> ''
        AND (a.search_name LIKE '%' || (SELECT fold_name(${q}::text)) || '%'
             OR a.search_full_name LIKE '%' || (SELECT fold_name(${q}::text)) || '%')
        AND ${Statement.unsafeFragment(artistVisibleSql("a"))}`

    const listByName = (q: string | undefined, page: PageRequest, offset: number) =>
      Effect.gen(function*() {
        const after = keyPair(page)
        const afterKey = sql`(${after.value}::text IS NULL OR (lower(a.name), a.id) > (${after.value}::text, ${after.id}::int))`
        const head = q === undefined
          ? sql`page AS (
              SELECT a.id, lower(a.name) AS sort_name FROM artists a
              WHERE ${afterKey} AND ${Statement.unsafeFragment(artistVisibleSql("a"))}
              ORDER BY lower(a.name), a.id
              LIMIT ${page.limit} OFFSET ${offset})`
          : sql`listed AS (SELECT m.id, lower(m.name) AS sort_name FROM (${matchingSql(q)}) m),
            page AS (
              SELECT l.id, l.sort_name FROM listed l
              WHERE ${after.value}::text IS NULL OR (l.sort_name, l.id) > (${after.value}::text, ${after.id}::int)
              ORDER BY l.sort_name, l.id
              LIMIT ${page.limit} OFFSET ${offset})`
        return yield* sql<PageRow>`
          WITH ${head}
          SELECT
            ${q === undefined ? sql`visible_artist_count()` : sql`(SELECT count(*) FROM listed)`}::int AS total,
            (SELECT count(*) FROM page)::int AS served,
            (SELECT ${lit(jsonArraySql(artistSummaryJsonSql("a"), "p.sort_name, p.id"))}
             FROM page p JOIN artists a ON a.id = p.id)::text AS items,
            (SELECT json_build_array(p.sort_name, p.id) FROM page p ORDER BY p.sort_name DESC, p.id DESC LIMIT 1)::text AS last_key`
      })

    const listBySongs = (q: string | undefined, page: PageRequest, offset: number) =>
      Effect.gen(function*() {
        const after = keyPair(page)
        const head = q === undefined
          ? sql`page AS (
              SELECT r.id, r.song_count::int AS song_count
              FROM artists_by_song_count(${after.value}::int, ${after.id}::int, ${offset + page.limit}::int) r
              ORDER BY r.song_count DESC, r.id
              LIMIT ${page.limit} OFFSET ${offset})`
          : sql`listed AS (SELECT m.id, public_artist_song_count(m.id)::int AS song_count FROM (${matchingSql(q)}) m),
            page AS (
              SELECT l.id, l.song_count FROM listed l
              WHERE ${after.value}::int IS NULL
                 OR l.song_count < ${after.value}::int OR (l.song_count = ${after.value}::int AND l.id > ${after.id}::int)
              ORDER BY l.song_count DESC, l.id
              LIMIT ${page.limit} OFFSET ${offset})`
        return yield* sql<PageRow>`
          WITH ${head}
          SELECT
            ${q === undefined ? sql`visible_artist_count()` : sql`(SELECT count(*) FROM listed)`}::int AS total,
            (SELECT count(*) FROM page)::int AS served,
            (SELECT ${lit(jsonArraySql(artistSummaryJsonSql("a", "p.song_count"), "p.song_count DESC, p.id"))}
             FROM page p JOIN artists a ON a.id = p.id)::text AS items,
            (SELECT json_build_array(p.song_count, p.id) FROM page p ORDER BY p.song_count, p.id DESC LIMIT 1)::text AS last_key`
      })

    const list = (params: { readonly q: string | undefined; readonly sort: ArtistSort; readonly page: PageRequest }) => {
      const { page } = params
      const offset = page.after === undefined ? page.offset : 0
      return (params.sort === "name" ? listByName : listBySongs)(params.q, page, offset).pipe(
        Effect.map((rows) => toPage(rows[0])),
        Effect.catchTag("SqlError", Effect.die),
        withSpan("ArtistsRepo.list")
      )
    }

    /** Detail as JSON text, or None when the artist is not visible. */
    const detailJson = (artistId: number) =>
      sql<{ json: string }>`
        WITH albums_of_artist AS (${albumsOf(artistId)})
        SELECT ${
        lit(jsonObjectSql({
          ...artistIdentityFieldsSql("a"),
          disambiguator: "nullif(btrim(a.disambiguator), '')",
          username: "(SELECT m.username FROM public_members m WHERE m.id = a.member_id)",
          song_count: artistSongCountSql("a"),
          album_count: "(SELECT count(*) FROM albums_of_artist x)",
          roles: `(
            SELECT ${
            jsonArraySql(
              jsonObjectSql({ slug: "r.slug", title: "r.title", count: "rc.count" }),
              "rc.count DESC, r.sort_order, r.id"
            )
          }
            FROM (
              SELECT c.role_id, count(DISTINCT c.song_id) AS count
              FROM credits c JOIN public_songs s ON s.id = c.song_id
              WHERE c.artist_id = a.id GROUP BY c.role_id
            ) rc JOIN roles r ON r.id = rc.role_id)`,
          members: `(
            SELECT ${jsonArraySql(albumArtistJsonSql("ma"), "lower(ma.name), ma.id")}
            FROM artist_memberships am JOIN public_artists ma ON ma.id = am.member_id WHERE am.group_id = a.id)`,
          member_of: `(
            SELECT ${jsonArraySql(albumArtistJsonSql("ga"), "lower(ga.name), ga.id")}
            FROM artist_memberships am JOIN public_artists ga ON ga.id = am.group_id WHERE am.member_id = a.id)`
        }))
      }::text AS json
        FROM public_artists a WHERE a.id = ${artistId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.json)),
        Effect.orDie,
        withSpan("ArtistsRepo.detailJson")
      )

    /** The artist's public songs in `role`, newest first; None when the artist is not visible. */
    const songs = (artistId: number, role: ArtistSongRole, page: PageRequest) =>
      Effect.gen(function*() {
        const after = keyPair(page)
        const offset = page.after === undefined ? page.offset : 0
        const afterKey = (alias: string) => sql`(${after.value}::text IS NULL
          OR (${Statement.unsafeFragment(alias)}.released_at, ${Statement.unsafeFragment(alias)}.id) < (${after.value}::date, ${after.id}::int))`
        // A prolific artist's songs in any role (kept count, sql/0008) are dense among all songs:
        // walk songs_public_released_idx with a credit probe per song (OFFSET 0: a probe, not a
        // join) instead of collecting and sorting tens of thousands, while the rows the walk
        // expects to read (offset + limit over the artist's share of songs) stay well under the
        // artist's songs. One of the two arms runs.
        return yield* sql<PageRow & { found: boolean }>`
          WITH listed AS (
            SELECT s.id, s.released_at FROM public_songs s
            WHERE s.id IN (
              SELECT c.song_id FROM credits c JOIN roles r ON r.id = c.role_id
              WHERE c.artist_id = ${artistId} AND (${role}::text = 'any' OR r.tag = ${role}::text))),
          kept AS MATERIALIZED (
            SELECT coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = ${artistId}), 0)::bigint AS n),
          walk AS MATERIALIZED (
            SELECT ${role}::text = 'any' AND k.n >= ${DENSE_ARTIST_SONGS}::int
               AND ${page.limit + offset}::bigint * (SELECT cc.live_songs FROM catalogue_counts cc) <= k.n * k.n / 4 AS yes
            FROM kept k),
          page AS (
            SELECT p.id, p.released_at FROM (
              (SELECT s.id, s.released_at FROM public_songs s
               WHERE (SELECT yes FROM walk)
                 AND EXISTS (SELECT 1 FROM credits c WHERE c.song_id = s.id AND c.artist_id = ${artistId} OFFSET 0)
                 AND ${afterKey("s")}
               ORDER BY s.released_at DESC, s.id DESC
               LIMIT ${page.limit + offset})
              UNION ALL
              (SELECT l.id, l.released_at FROM listed l
               WHERE NOT (SELECT yes FROM walk) AND ${afterKey("l")}
               ORDER BY l.released_at DESC, l.id DESC
               LIMIT ${page.limit + offset})) p
            ORDER BY p.released_at DESC, p.id DESC
            LIMIT ${page.limit} OFFSET ${offset})
          SELECT
            EXISTS (SELECT 1 FROM public_artists a WHERE a.id = ${artistId}) AS found,
            (CASE WHEN ${role}::text = 'any' THEN public_artist_song_count(${artistId})
                  ELSE (SELECT count(*) FROM listed) END)::int AS total,
            (SELECT count(*) FROM page)::int AS served,
            (SELECT ${lit(jsonArraySql(songSummaryJsonSql("s"), "p.released_at DESC, p.id DESC"))}
             FROM page p JOIN songs s ON s.id = p.id)::text AS items,
            (SELECT json_build_array(iso_date(p.released_at), p.id) FROM page p
             ORDER BY p.released_at, p.id LIMIT 1)::text AS last_key`
      }).pipe(
        Effect.flatMap((rows) =>
          Effect.succeed(rows[0]?.found === true ? Option.some(toPage(rows[0])) : Option.none<JsonPage>())),
        Effect.catchTag("SqlError", Effect.die),
        withSpan("ArtistsRepo.songs")
      )

    /** The artist's public albums, newest first; None when the artist is not visible. */
    const albums = (artistId: number, page: PageRequest) =>
      Effect.gen(function*() {
        const after = keyPair(page)
        const offset = page.after === undefined ? page.offset : 0
        return yield* sql<PageRow & { found: boolean }>`
          WITH listed AS (${albumsOf(artistId)}),
          page AS (
            SELECT l.id, l.sort_date FROM listed l
            WHERE ${after.value}::text IS NULL OR (l.sort_date, l.id) < (${after.value}::text, ${after.id}::int)
            ORDER BY l.sort_date DESC, l.id DESC
            LIMIT ${page.limit} OFFSET ${offset})
          SELECT
            EXISTS (SELECT 1 FROM public_artists a WHERE a.id = ${artistId}) AS found,
            (SELECT count(*) FROM listed)::int AS total,
            (SELECT count(*) FROM page)::int AS served,
            (SELECT ${lit(jsonArraySql(listAlbumEntryJsonSql("al", "public"), "p.sort_date DESC, p.id DESC"))}
             FROM page p JOIN albums al ON al.id = p.id)::text AS items,
            (SELECT json_build_array(p.sort_date, p.id) FROM page p ORDER BY p.sort_date, p.id LIMIT 1)::text AS last_key`
      }).pipe(
        Effect.flatMap((rows) =>
          Effect.succeed(rows[0]?.found === true ? Option.some(toPage(rows[0])) : Option.none<JsonPage>())),
        Effect.catchTag("SqlError", Effect.die),
        withSpan("ArtistsRepo.albums")
      )

    /**
     * The namesake hints as a JSON array, in the order asked: a row for each asked id whose
     * folded name equals another visible artist's. `ids` is the comma-joined list (one parameter,
     * so the statement text is the same for any number of ids).
     */
    const namesakeHintsJson = (ids: ReadonlyArray<number>) =>
      sql<{ json: string; count: number }>`
        WITH asked AS (
          SELECT x.id::int AS id, x.ord FROM unnest(string_to_array(${ids.join(",")}::text, ',')) WITH ORDINALITY AS x(id, ord)),
        colliding AS (
          SELECT a.id, a.disambiguator, asked.ord FROM asked JOIN public_artists a ON a.id = asked.id
          WHERE EXISTS (
            SELECT 1 FROM public_artists o WHERE fold_name(o.name) = fold_name(a.name) AND o.id <> a.id)),
        hints AS (
          SELECT h.id, h.ord, h.disambiguator,
            coalesce(top_role.title, 'Album artist') AS role,
            coalesce(best_song.title, best_album.title, '') AS song,
            coalesce(extract(year FROM coalesce(best_song.released_at, best_album.released_at))::int, 0) AS song_year
          FROM colliding h
          LEFT JOIN LATERAL (
            SELECT r.title FROM credits c JOIN public_songs s ON s.id = c.song_id JOIN roles r ON r.id = c.role_id
            WHERE c.artist_id = h.id
            GROUP BY r.id, r.title, r.sort_order
            ORDER BY count(DISTINCT c.song_id) DESC, r.sort_order, r.id LIMIT 1) top_role ON true
          LEFT JOIN LATERAL (
            SELECT s.title, s.released_at FROM public_songs s
            WHERE s.id IN (SELECT c.song_id FROM credits c WHERE c.artist_id = h.id)
            ORDER BY s.vidsvc_views DESC NULLS LAST, s.released_at, s.id LIMIT 1) best_song ON true
          LEFT JOIN LATERAL (
            SELECT al.title, al.released_at FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id
            WHERE aa.artist_id = h.id
            ORDER BY al.released_at NULLS LAST, al.id LIMIT 1) best_album ON true)
        SELECT
          (SELECT count(*) FROM hints)::int AS count,
          (SELECT ${lit(namesakeHintJsonSql)} FROM hints h)::text AS json`.pipe(
        Effect.map((rows) => ({ json: rows[0]?.json ?? "[]", count: rows[0]?.count ?? 0 })),
        Effect.orDie,
        withSpan("ArtistsRepo.namesakeHintsJson")
      )

    /** `ids=`: the asked visible artists' summaries, in the order asked. */
    const byIds = (ids: ReadonlyArray<number>) =>
      batchLookup("public_artists a", "a", artistSummaryJsonSql("a"), ids).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("ArtistsRepo.byIds")
      )

    return { list, detailJson, songs, albums, namesakeHintsJson, byIds } as const
  })
}) {}
