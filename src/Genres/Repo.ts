import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { keysetPage } from "../Domain/Keyset.js"
import { genre, genreEntry } from "../Domain/Genre.js"
import { jsonArraySql } from "../Domain/JsonSql.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import { DEFAULT_LIMIT } from "../Domain/Params.js"
import { ownSongSort, songSort, songSortDescendingByDefault, type SongSortName } from "../Domain/SongSorts.js"
import { steered } from "../Domain/SteeredPage.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"

const lit = Statement.unsafeFragment

/** The public song count of genres row `g` joined to its public count `gc`. */
const songCount = "coalesce(gc.song_count, 0)::int"

export class GenresRepo extends Effect.Service<GenresRepo>()("catalogue/GenresRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext

    /** Genre list entries, whole, by title; with the row count for meta. */
    const listGenres = sql<{ total: number; json: string }>`
      SELECT count(*)::int AS total,
        ${lit(jsonArraySql(genreEntry.json("g", songCount), "lower(g.title), g.id"))}::text AS json
      FROM genres g LEFT JOIN public_genre_counts gc ON gc.genre_id = g.id`.pipe(
      Effect.map((rows) => rows[0] ?? { total: 0, json: "[]" }),
      Effect.orDie,
      withSpan("GenresRepo.listGenres")
    )

    /** Genre detail as JSON text; None when no genre has the slug. */
    const findGenre = (slug: string) =>
      sql<{ json: string }>`
        SELECT ${lit(genre.json("g", songCount))}::text AS json
        FROM genres g LEFT JOIN public_genre_counts gc ON gc.genre_id = g.id
        WHERE g.slug = ${slug}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.json)),
        Effect.orDie,
        withSpan("GenresRepo.findGenre")
      )

    /**
     * The genre's public songs. found=false: no genre has the slug. Newest first walks the
     * genre's own kept order (ownSongSort). Else, as a label's songs
     * (src/Labels/Repo.ts): through the genre's links when genre songs^2 < (offset + limit) x
     * catalogue (a small genre, a deep offset), else the sort's index walked with link probes.
     */
    const listGenreSongs = (slug: string, sortName: SongSortName, page: PageParamsInput) =>
      Effect.gen(function*() {
        const scope = `genre-songs|${slug}|${sortName}`
        const guard = sql`EXISTS (SELECT 1 FROM genres WHERE slug = ${slug})`
        const total = sql`SELECT coalesce((SELECT public_genre_song_count(g.id) FROM genres g WHERE g.slug = ${slug}), 0)`
        const genreId = sql`(SELECT id FROM genres WHERE slug = ${slug})`
        // newest first: the genre's own kept order, one index range walked from the nearer end
        const own = ownSongSort("genre", sortName, songSortDescendingByDefault[sortName])
        if (own !== undefined) {
          return yield* keysetPage(own, [sql`s.order_owner = ${genreId}`], page, scope, { guard, total, steer: steered({}) })
        }
        const [sizes] = yield* sql<{ songs: number; catalogue: number }>`
          SELECT coalesce((SELECT public_genre_song_count(g.id) FROM genres g WHERE g.slug = ${slug}), 0)::float8 AS songs,
                 (SELECT live_songs FROM catalogue_counts)::float8 AS catalogue`.pipe(Effect.orDie)
        const reach = (page.cursor === undefined ? page.offset ?? 0 : 0) + (page.limit ?? DEFAULT_LIMIT)
        const viaLinks = sizes !== undefined && sizes.songs * sizes.songs < reach * sizes.catalogue
        const filter = viaLinks
          ? sql`s.id = ANY (ARRAY(SELECT sg.song_id FROM song_genres sg WHERE sg.genre_id = ${genreId}))`
          : sql`EXISTS (SELECT 1 FROM song_genres sg WHERE sg.song_id = s.id AND sg.genre_id = ${genreId})`
        return yield* keysetPage(songSort(sortName), [filter], page, scope, { guard, total })
      }).pipe(Effect.provide(database), withSpan("GenresRepo.listGenreSongs"))

    return { listGenres, findGenre, listGenreSongs } as const
  })
}) {}
