import * as SqlClient from "@effect/sql/SqlClient"
import { batchLookup } from "../Domain/Batch.js"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { artistIdentityPairsSql, artistSongCountSql, artistSummaryJson } from "../Domain/Artist.js"
import { BadRequest } from "../Domain/Errors.js"
import type { PageRequest, SortKey } from "../Domain/Pagination.js"
import { albumArtistJson, listAlbumEntryJson, songSummaryJson } from "../Domain/Song.js"
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

const badCursor = new BadRequest({ message: "cursor is not valid for this list; use the meta.next_cursor it came with." })

/**
 * The cursor's sort key as [value, id] of the expected value type, or nulls without a cursor.
 * Cursors are plain base64 JSON, so a forged key must be a bad_request, never a failing query.
 */
const keyPair = <V>(page: PageRequest, isValue: (value: unknown) => value is V) => {
  if (page.after === undefined) return Effect.succeed({ value: null as V | null, id: null as number | null })
  const [value, id] = page.after
  return page.after.length === 2 && isValue(value) && Number.isSafeInteger(id)
    ? Effect.succeed({ value: value as V | null, id: id as number | null })
    : Effect.fail(badCursor)
}

const isText = (value: unknown): value is string => typeof value === "string" && value.length <= 1000
const isCount = (value: unknown): value is number => Number.isSafeInteger(value)
const isIsoDate = (value: unknown): value is string =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) &&
  new Date(value).toISOString().startsWith(value)
/** An album's sort date: YYYY-MM-DD, or "" for an album without one (compared as text). */
const isAlbumDate = (value: unknown): value is string => value === "" || isIsoDate(value)


export class ArtistsRepo extends Effect.Service<ArtistsRepo>()("catalogue/ArtistsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * The albums listed under an artist (D6): albums naming the artist, and albums without named
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

    const list = (params: { readonly q: string | undefined; readonly sort: ArtistSort; readonly page: PageRequest }) =>
      Effect.gen(function*() {
        const { page } = params
        const q = params.q ?? null
        const offset = page.after === undefined ? page.offset : 0
        // without q, the kept count of sql/0006 (counting every visible artist took ~1.2 s at 100k songs)
        const total = q === null ? sql`(SELECT artists FROM public_catalogue_counts)` : sql`(SELECT count(*) FROM listed)`
        const matching = sql`
          SELECT a.id, a.name FROM public_artists a
          WHERE ${q}::text IS NULL
             OR ((SELECT fold_name(${q}::text)) <> ''
                 AND (a.search_name LIKE '%' || (SELECT fold_name(${q}::text)) || '%'
                      OR a.search_full_name LIKE '%' || (SELECT fold_name(${q}::text)) || '%'))`
        if (params.sort === "name") {
          const after = yield* keyPair(page, isText)
          return yield* sql<PageRow>`
            WITH listed AS (SELECT m.id, lower(m.name) AS sort_name FROM (${matching}) m),
            page AS (
              SELECT l.id, l.sort_name FROM listed l
              WHERE ${after.value}::text IS NULL OR (l.sort_name, l.id) > (${after.value}::text, ${after.id}::int)
              ORDER BY l.sort_name, l.id
              LIMIT ${page.limit} OFFSET ${offset})
            SELECT
              ${total}::int AS total,
              (SELECT count(*) FROM page)::int AS served,
              (SELECT coalesce(json_agg(${artistSummaryJson("a")} ORDER BY p.sort_name, p.id), '[]')
               FROM page p JOIN artists a ON a.id = p.id)::text AS items,
              (SELECT json_build_array(p.sort_name, p.id) FROM page p ORDER BY p.sort_name DESC, p.id DESC LIMIT 1)::text AS last_key`
        }
        const after = yield* keyPair(page, isCount)
        return yield* sql<PageRow>`
          WITH listed AS (SELECT m.id, ${Statement.unsafeFragment(artistSongCountSql("m"))}::int AS song_count FROM (${matching}) m),
          page AS (
            SELECT l.id, l.song_count FROM listed l
            WHERE ${after.value}::int IS NULL
               OR l.song_count < ${after.value}::int OR (l.song_count = ${after.value}::int AND l.id > ${after.id}::int)
            ORDER BY l.song_count DESC, l.id
            LIMIT ${page.limit} OFFSET ${offset})
          SELECT
            ${total}::int AS total,
            (SELECT count(*) FROM page)::int AS served,
            (SELECT coalesce(json_agg(${artistSummaryJson("a", "p.song_count")} ORDER BY p.song_count DESC, p.id), '[]')
             FROM page p JOIN artists a ON a.id = p.id)::text AS items,
            (SELECT json_build_array(p.song_count, p.id) FROM page p ORDER BY p.song_count, p.id DESC LIMIT 1)::text AS last_key`
      }).pipe(
        Effect.map((rows) => toPage(rows[0])),
        Effect.catchTag("SqlError", Effect.die),
        withSpan("ArtistsRepo.list")
      )

    /** D6 detail as JSON text, or None when the artist is not visible (D14). */
    const detailJson = (artistId: number) =>
      sql<{ json: string }>`
        SELECT json_build_object(
          ${Statement.unsafeFragment(artistIdentityPairsSql("a"))},
          'disambiguator', nullif(btrim(a.disambiguator), ''),
          'username', (SELECT m.username FROM public_members m WHERE m.id = a.member_id),
          'song_count', ${Statement.unsafeFragment(artistSongCountSql("a"))},
          'album_count', (SELECT count(*) FROM (${albumsOf(artistId)}) x),
          'roles', (
            SELECT coalesce(json_agg(json_build_object('slug', r.slug, 'title', r.title, 'count', rc.count)
                                     ORDER BY rc.count DESC, r.sort_order, r.id), '[]')
            FROM (
              SELECT c.role_id, count(DISTINCT c.song_id) AS count
              FROM credits c JOIN public_songs s ON s.id = c.song_id
              WHERE c.artist_id = a.id GROUP BY c.role_id
            ) rc JOIN roles r ON r.id = rc.role_id),
          'members', (
            SELECT coalesce(json_agg(${albumArtistJson("ma")} ORDER BY lower(ma.name), ma.id), '[]')
            FROM artist_memberships am JOIN public_artists ma ON ma.id = am.member_id WHERE am.group_id = a.id),
          'member_of', (
            SELECT coalesce(json_agg(${albumArtistJson("ga")} ORDER BY lower(ga.name), ga.id), '[]')
            FROM artist_memberships am JOIN public_artists ga ON ga.id = am.group_id WHERE am.member_id = a.id)
        )::text AS json
        FROM public_artists a WHERE a.id = ${artistId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.json)),
        Effect.orDie,
        withSpan("ArtistsRepo.detailJson")
      )

    /** The artist's public songs in `role`, newest first; None when the artist is not visible. */
    const songs = (artistId: number, role: ArtistSongRole, page: PageRequest) =>
      Effect.gen(function*() {
        const after = yield* keyPair(page, isIsoDate)
        const offset = page.after === undefined ? page.offset : 0
        return yield* sql<PageRow & { found: boolean }>`
          WITH listed AS (
            SELECT s.id, s.released_at FROM public_songs s
            WHERE s.id IN (
              SELECT c.song_id FROM credits c JOIN roles r ON r.id = c.role_id
              WHERE c.artist_id = ${artistId} AND (${role}::text = 'any' OR r.tag = ${role}::text))),
          page AS (
            SELECT l.id, l.released_at FROM listed l
            WHERE ${after.value}::text IS NULL
               OR (l.released_at, l.id) < (${after.value}::date, ${after.id}::int)
            ORDER BY l.released_at DESC, l.id DESC
            LIMIT ${page.limit} OFFSET ${offset})
          SELECT
            EXISTS (SELECT 1 FROM public_artists a WHERE a.id = ${artistId}) AS found,
            (SELECT count(*) FROM listed)::int AS total,
            (SELECT count(*) FROM page)::int AS served,
            (SELECT coalesce(json_agg(${songSummaryJson("s")} ORDER BY p.released_at DESC, p.id DESC), '[]')
             FROM page p JOIN songs s ON s.id = p.id)::text AS items,
            (SELECT json_build_array(iso_date(p.released_at), p.id) FROM page p
             ORDER BY p.released_at, p.id LIMIT 1)::text AS last_key`
      }).pipe(
        Effect.flatMap((rows) =>
          Effect.succeed(rows[0]?.found === true ? Option.some(toPage(rows[0])) : Option.none<JsonPage>())),
        Effect.catchTag("SqlError", Effect.die),
        withSpan("ArtistsRepo.songs")
      )

    /** The artist's public albums (D6), newest first; None when the artist is not visible. */
    const albums = (artistId: number, page: PageRequest) =>
      Effect.gen(function*() {
        const after = yield* keyPair(page, isAlbumDate)
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
            (SELECT coalesce(json_agg(${listAlbumEntryJson("al", "public")} ORDER BY p.sort_date DESC, p.id DESC), '[]')
             FROM page p JOIN albums al ON al.id = p.id)::text AS items,
            (SELECT json_build_array(p.sort_date, p.id) FROM page p ORDER BY p.sort_date, p.id LIMIT 1)::text AS last_key`
      }).pipe(
        Effect.flatMap((rows) =>
          Effect.succeed(rows[0]?.found === true ? Option.some(toPage(rows[0])) : Option.none<JsonPage>())),
        Effect.catchTag("SqlError", Effect.die),
        withSpan("ArtistsRepo.albums")
      )

    /**
     * Spec 2.12 / D6 / D14 as a JSON array, in the order asked: a row for each asked id whose
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
          (SELECT coalesce(json_agg(json_build_object(
            'id', id,
            'disambiguator', coalesce(nullif(btrim(disambiguator), ''),
                                      role || ', ' || song || CASE WHEN song_year > 0 THEN ' (' || song_year || ')' ELSE '' END),
            'role', role,
            'song', song,
            'song_year', song_year) ORDER BY ord), '[]') FROM hints)::text AS json`.pipe(
        Effect.map((rows) => ({ json: rows[0]?.json ?? "[]", count: rows[0]?.count ?? 0 })),
        Effect.orDie,
        withSpan("ArtistsRepo.namesakeHintsJson")
      )

    /** `ids=`: the asked visible artists' summaries, in the order asked. */
    const byIds = (ids: ReadonlyArray<number>) =>
      batchLookup("public_artists a", "a", artistSummaryJson("a"), ids).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("ArtistsRepo.byIds")
      )

    return { list, detailJson, songs, albums, namesakeHintsJson, byIds } as const
  })
}) {}
