import * as SqlClient from "effect/sql/SqlClient"
import { batchLookup, ID_KEY } from "../Queries/Batch.js"
import * as Statement from "effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { artistDetail, artistSettledSongsSql, artistSummary, namesakeHint } from "../Shapes/Artist.js"
import { keysetPage, type KeysetSort, type TableKeysetSort } from "../Queries/Keyset.js"
import { foldedName, foldedNameContains, isShortQuery } from "../Queries/NameFilter.js"
import { steered } from "../Queries/SteeredPage.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import type { PublicRows } from "../Queries/Detail.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { DEFAULT_LIMIT } from "../Contract/Params.js"
import { listAlbumEntry, songSummaryOf } from "../Shapes/Song.js"
import type { ArtistSongRole, ArtistSort } from "./Api.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"
import { unsafeFragment } from "../Database/SqlText.js"

/** The cursor scopes: the whole list definition (sort and filter; the artist and role). */
const listScope = (sort: ArtistSort, q: string | undefined) => `artists:${sort}:${q ?? ""}`
const songsScope = (artistId: number, role: ArtistSongRole) => `artist-songs:${artistId}:${role}`
const albumsScope = (artistId: number) => `artist-albums:${artistId}`

const lit = unsafeFragment

/** Every visible artist's detail, by id: the detail reads one, the snapshots all. */
export const publicArtistRows: PublicRows = {
  select: `SELECT ${artistDetail.json("a", "public_artist_album_count(a.id)")}::text AS json FROM public_artists a`,
  key: "a.id"
}

/** Artists rows `a` whose name matches q in name order; cursor key: the lowercased name, the id. */
const byNameSort = (source: KeysetSort["source"]): KeysetSort => ({
  source,
  alias: "a",
  key: "lower(a.name)",
  keyJson: "lower(a.name)",
  keyType: "text",
  item: artistSummary.json("a"),
  descending: false
})

/**
 * Visible artists in name order as rows `a` of (name_key, id), the same keys as byNameSort, built
 * from `parts` (visibleArtistParts): the summary is built for the page's rows only (one
 * primary-key probe each), never for the rows a deep page skips.
 */
const visibleByName = (parts: ReadonlyArray<Statement.Fragment>): KeysetSort => ({
  source: () => parts,
  alias: "a",
  key: "a.name_key",
  keyJson: "a.name_key",
  keyType: "text",
  item: `(SELECT ${artistSummary.json("x")} FROM artists x WHERE x.id = a.id)`,
  descending: false
})

/**
 * Visible artists with their public song counts (`a.id`, `a.song_count`), most songs first, then
 * the id: `-song_count` ascending, as its kept index. The summary is built for the page's
 * rows only (one primary-key probe each), never for the rows a deep page skips.
 */
const bySongsSort = (source: KeysetSort["source"]): KeysetSort => ({
  source,
  alias: "a",
  key: "-a.song_count",
  keyJson: "a.song_count",
  keyType: "int",
  negated: true,
  item: `(SELECT ${artistSummary.json("x", "a.song_count")} FROM artists x WHERE x.id = a.id)`,
  descending: false
})

/**
 * Every artist's public songs newest first, as rows `s` of (id, artist_id, released_at, performer,
 * writer) kept with the public rule (a list filters `s.artist_id`, and the role's
 * flag): one index-only range of the artist's, walked from the nearer end; the summary is built
 * for the page's rows only (one primary-key probe each), never for the rows an offset skips.
 */
const artistSongsSort: TableKeysetSort = {
  source: `(SELECT o.song_id AS id, o.artist_id, o.released_at, o.performer, o.writer FROM artist_song_orders o
      WHERE song_is_public(o.public_from, NULL)) s`,
  alias: "s",
  key: "s.released_at",
  keyJson: "iso_date(s.released_at)",
  keyType: "date",
  item: songSummaryOf("s.id"),
  descending: true
}

/**
 * The artist's public albums rows `al` (albums columns plus the kept `album_id` and
 * `released_key`), newest first, albums without a date last: the kept pairs are one
 * range of artist_album_links_order_idx, cursor included.
 */
const albumsSort = (source: KeysetSort["source"]): KeysetSort => ({
  source,
  alias: "al",
  key: "al.released_key",
  keyJson: "al.released_key",
  keyType: "dateOrEmpty",
  item: listAlbumEntry.json("al", "public"),
  descending: true,
  tie: { key: "al.album_id", keyType: "id" }
})

/**
 * What collecting one match of a short query costs (its artist probed for the public rule and song
 * count), in entries of a kept order walked: ~10 us against ~0.16 us at 1M songs (docs/query-plans.md).
 */
export const MATCH_PROBE_IN_WALKED_ENTRIES = 60

/**
 * Does a short query's page cost less collected from its `matches` kept pairs (each probed, then
 * sorted) than walked along a kept order of `keptArtists` entries? The walk passes
 * keptArtists / matches entries for each match up to the page's end (offset + limit, or limit from a
 * cursor); a page past every match is not walked at all (`countFirst`).
 */
export const collectsFewMatches = (matches: number, keptArtists: number, page: PageParamsInput) => {
  const offset = page.cursor === undefined ? page.offset ?? 0 : 0
  if (offset >= matches && matches > 0) return false
  const reached = Math.min(offset + (page.limit ?? DEFAULT_LIMIT), matches)
  return matches * MATCH_PROBE_IN_WALKED_ENTRIES * matches <= reached * keptArtists
}

const namesakeHintJsonSql = jsonArraySql(namesakeHint.json("h"), "h.ord")

/**
 * The best-known public song (most video views, then earliest, then id) of the artist of row `h`,
 * as one row (title, released_at), or none. An artist of s public songs among P (its settled count
 * kept): its songs are collected from kept pairs, each probed for its views, while
 * s² < P (the views and dates from an index alone, the title of the best one only); a
 * more prolific one's is found by walking the catalogue's popular order with a credit probe a
 * song (about P / s of them: ~150 for an artist of 7k songs at 1M, where collecting cost ~60 ms),
 * then the songs of those views read for the earliest. `EXISTS (... OFFSET 0)`: a probe,
 * not a join.
 */
const bestSongSql = (h: string) => `
  SELECT best.title, best.released_at FROM (
    SELECT k.settled * k.settled >= (SELECT songs FROM public_catalogue_counts) AS walk
    FROM (SELECT ${artistSettledSongsSql(h)}::bigint AS settled) k) way
  CROSS JOIN LATERAL (
    (SELECT s.title, s.released_at FROM (
       SELECT v.id FROM artist_song_orders o JOIN songs v ON v.id = o.song_id
       WHERE NOT way.walk AND o.artist_id = ${h}.id AND song_is_public(o.public_from, NULL)
       ORDER BY v.vidsvc_views DESC NULLS LAST, v.released_at, v.id LIMIT 1) b
     JOIN songs s ON s.id = b.id)
    UNION ALL
    (SELECT tie.title, tie.released_at FROM (
       SELECT coalesce(s.vidsvc_views, -1) AS views FROM public_songs s
       WHERE way.walk AND EXISTS (SELECT 1 FROM credits c WHERE c.artist_id = ${h}.id AND c.song_id = s.id OFFSET 0)
       ORDER BY coalesce(s.vidsvc_views, -1) DESC, s.id DESC LIMIT 1) top
     CROSS JOIN LATERAL (
       SELECT s.title, s.released_at, s.id FROM public_songs s
       WHERE coalesce(s.vidsvc_views, -1) = top.views
         AND EXISTS (SELECT 1 FROM credits c WHERE c.artist_id = ${h}.id AND c.song_id = s.id OFFSET 0)
       OFFSET 0) tie
     ORDER BY tie.released_at, tie.id LIMIT 1)) best`

export class ArtistsRepo extends Context.Service<ArtistsRepo>()("catalogue/ArtistsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext

    /**
     * Visible artists whose name matches q (trigram indexes; `among`, a set of ids the
     * matches are among, when something narrower finds them), by the artists' rule
     * (artist_visibility, inlined), with their public song counts: cost grows with the matches.
     * The rule hands back the settled count it probed, which the count reuses; the due songs are
     * one set built once (usually empty), not a function call a match.
     */
    const matchingSql = (q: string, among?: Statement.Fragment) => sql`(
      SELECT a.*, (v.settled_songs + coalesce(d.songs, 0))::int AS song_count FROM artists a
      CROSS JOIN LATERAL artist_visibility(a.id) v
      LEFT JOIN due_artist_songs d ON d.artist_id = a.id
      WHERE ${among === undefined ? lit("TRUE") : sql`a.id IN (${among})`}
        AND ${foldedNameContains(sql, q, ["a.search_name", "a.search_full_name"])}
        AND v.visible) a`

    /**
     * The visible artists whose folded names pass `named` (every visible artist without it), as
     * parts of rows `a` (name_key, id): those with a settled song from artist_song_counts, which
     * keeps their names (index-only in name order), and the few others
     * (visible_unsettled_artists) tested by their own names.
     */
    const visibleArtistParts = (named?: (columns: ReadonlyArray<string>) => Statement.Fragment) =>
      named === undefined
        ? [
          lit("(SELECT ac.name_key, ac.artist_id AS id FROM artist_song_counts ac WHERE ac.settled_songs > 0) a"),
          lit("visible_unsettled_artists() a")
        ]
        : [
          sql`(SELECT ac.name_key, ac.artist_id AS id FROM artist_song_counts ac
              WHERE ac.settled_songs > 0 AND ${named(["ac.search_name", "ac.search_full_name"])}) a`,
          sql`(SELECT u.name_key, u.id FROM visible_unsettled_artists() u JOIN artists x ON x.id = u.id
              WHERE ${named(["x.search_name", "x.search_full_name"])}) a`
        ]

    const keptTotal = lit("SELECT visible_artist_count()")

    /**
     * walk by song count: the page's rows themselves (from the cursor on, or past the
     * offset), of the artists whose names contain the folded q (NULL: all).
     */
    const bySongCount = (folded: Statement.Fragment) =>
      bySongsSort((p) =>
        sql`artists_by_song_count(${folded}, ${p.after?.[0] ?? null}::int, ${p.after?.[1] ?? null}::int, ${
          p.after === undefined ? p.offset : 0
        }::int, ${p.limit}::int) a`
      )

    /**
     * Artists whose names contain q, by the kept facts, read first (one
     * small statement): the kept orders walked with the names they carry, the total
     * kept or counted from the kept names' own indexes, unless the matches are so few that
     * collecting them (each probed) costs less than walking to the page (docs/query-plans.md): a q
     * of one or two characters (no trigram) from its kept gram's artists and the few visible
     * artists without a settled song, a longer one from the artists' trigram indexes.
     */
    const namedPage = (q: string, sort: ArtistSort, page: PageParamsInput, scope: string) =>
      Effect.gen(function*() {
        const [facts] = yield* sql<{ kept_matches: number; kept_artists: number }>`
          SELECT kept_matches, kept_artists FROM artist_name_query(${q}, ${MATCH_PROBE_IN_WALKED_ENTRIES})`
        if (facts === undefined || collectsFewMatches(facts.kept_matches, facts.kept_artists, page)) {
          const among = isShortQuery(q)
            ? sql`SELECT m.artist_id FROM artist_kept_name_matches(${q}) m UNION ALL SELECT u.id FROM visible_unsettled_artist_ids() u`
            : undefined
          return yield* keysetPage((sort === "name" ? byNameSort : bySongsSort)(() => matchingSql(q, among)), [], page, scope, {
            readOnce: true
          })
        }
        const named = visibleArtistParts((columns) => foldedNameContains(sql, q, columns))
        const total = sql`SELECT artist_kept_name_count(${q}, NULL) + (SELECT count(*) FROM ${named[1]!})`
        return yield* sort === "name"
          ? keysetPage(visibleByName(named), [], page, scope, { total, countFirst: true, fromNearerEnd: true })
          : keysetPage(bySongCount(foldedName(sql, q)), [], page, scope, { total, pagedBySource: true, countFirst: true })
      })

    /**
     * Without q: by name, the kept name order; by songs, the kept index walked
     * to the page; totals kept (visible_artist_count()). With q: `namedPage`.
     */
    const listArtists = (params: {
      readonly q: string | undefined
      readonly sort: ArtistSort
      readonly page: PageParamsInput
    }) => {
      const { page, q, sort } = params
      const scope = listScope(sort, q)
      const listed = q === undefined
        ? sort === "name"
          ? keysetPage(visibleByName(visibleArtistParts()), [], page, scope, { total: keptTotal, fromNearerEnd: true })
          : keysetPage(bySongCount(lit("NULL::text")), [], page, scope, { total: keptTotal, pagedBySource: true })
        : namedPage(q, sort, page, scope)
      return listed.pipe(Effect.provide(database), withSpan("ArtistsRepo.listArtists"))
    }

    /** The visible artist's detail as JSON text; None when the artist is not visible. */
    const findArtist = (artistId: number) =>
      sql<{ json: string }>`${lit(publicArtistRows.select)} WHERE a.id = ${artistId}`.pipe(
        Effect.map((rows) => Option.fromNullishOr(rows[0]?.json)),
        withSpan("ArtistsRepo.findArtist")
      )

    /**
     * The artist's public songs in `role`, newest first; found=false when the artist is not
     * visible. min(offset, total - offset) + limit entries of the artist's range,
     * index-only (the role is a flag of each entry); totals are kept (any role, per role
     * per tag).
     */
    const listArtistSongs = (artistId: number, role: ArtistSongRole, page: PageParamsInput) =>
      keysetPage(
        artistSongsSort,
        [sql`s.artist_id = ${artistId}`, ...role === "any" ? [] : [lit(`s.${role}`)]],
        page,
        songsScope(artistId, role),
        {
          guard: sql`EXISTS (SELECT 1 FROM public_artists a WHERE a.id = ${artistId})`,
          total: role === "any"
            ? sql`SELECT public_artist_song_count(${artistId})`
            : sql`SELECT public_artist_tag_song_count(${artistId}, ${role}::text)`,
          steer: steered({})
        }
      ).pipe(Effect.provide(database), withSpan("ArtistsRepo.listArtistSongs"))

    /**
     * The artist's public albums, newest first; found=false when the artist is not visible. Two
     * parts: the kept pairs of public albums, and the albums the artist performs on
     * through a due song (usually none). Total kept.
     */
    const listArtistAlbums = (artistId: number, page: PageParamsInput) =>
      keysetPage(
        albumsSort(() => [
          sql`(SELECT al.*, k.album_id, k.released_key FROM artist_album_links k JOIN albums al ON al.id = k.album_id
               WHERE k.artist_id = ${artistId} AND album_is_public(k.published_at)) al`,
          sql`(SELECT al.*, al.id AS album_id, coalesce(iso_date(al.released_at), '') AS released_key FROM albums al
               WHERE al.id IN (SELECT d.album_id FROM due_artist_albums(${artistId}) d)) al`
        ]),
        [],
        page,
        albumsScope(artistId),
        {
          guard: sql`EXISTS (SELECT 1 FROM public_artists a WHERE a.id = ${artistId})`,
          total: sql`SELECT public_artist_album_count(${artistId})`
        }
      ).pipe(Effect.provide(database), withSpan("ArtistsRepo.listArtistAlbums"))

    /**
     * The namesake hints as a JSON array, in the order asked: a row for each asked id whose
     * folded name equals another visible artist's. `ids` is the comma-joined list (one parameter,
     * so the statement text is the same for any number of ids). The role is the first of the
     * artist detail's roles (kept per role, was counted over every credit, ~8 ms for an
     * artist of 7k songs at 1M); the song: `bestSongSql`.
     */
    const hintNamesakes = (ids: ReadonlyArray<number>) =>
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
            SELECT r.title FROM public_artist_role_song_counts(h.id) rc JOIN roles r ON r.id = rc.role_id
            ORDER BY rc.songs DESC, r.sort_order, r.id LIMIT 1) top_role ON true
          LEFT JOIN LATERAL (${lit(bestSongSql("h"))}) best_song ON true
          LEFT JOIN LATERAL (
            SELECT al.title, al.released_at FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id
            WHERE aa.artist_id = h.id
            ORDER BY al.released_at NULLS LAST, al.id LIMIT 1) best_album ON true)
        SELECT
          (SELECT count(*) FROM hints)::int AS count,
          (SELECT ${lit(namesakeHintJsonSql)} FROM hints h)::text AS json`.pipe(
        Effect.map((rows) => ({ json: rows[0]?.json ?? "[]", count: rows[0]?.count ?? 0 })),
        withSpan("ArtistsRepo.hintNamesakes")
      )

    /** `ids=`: the asked visible artists' summaries, in the order asked. */
    const listArtistsByIds = (ids: ReadonlyArray<number>) =>
      batchLookup("public_artists a", "a", artistSummary.json("a"), ID_KEY, ids).pipe(
        Effect.provide(database),
        withSpan("ArtistsRepo.listArtistsByIds")
      )

    return { listArtists, listArtistsByIds, findArtist, listArtistSongs, listArtistAlbums, hintNamesakes } as const
  })
}) {
  static readonly layer = Layer.effect(ArtistsRepo, ArtistsRepo.make)
}
