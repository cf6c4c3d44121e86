import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { genre, genreEntry } from "../Shapes/Genre.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import type { PublicRows } from "../Queries/Detail.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { songBrowsePage } from "../Queries/SongBrowse.js"
import type { SongSortName } from "../Queries/SongSorts.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"
import { unsafeFragment } from "../Database/SqlText.js"

const lit = unsafeFragment

/** The public song count of genres row `g` joined to its public count `gc`. */
const songCount = "coalesce(gc.song_count, 0)::int"

/** Every genre's detail, by id: the detail reads one (by slug), the snapshots all. */
export const publicGenreRows: PublicRows = {
  select: `SELECT ${genre.json("g", songCount)}::text AS json FROM genres g LEFT JOIN public_genre_counts gc ON gc.genre_id = g.id`,
  key: "g.id"
}

export class GenresRepo extends Context.Service<GenresRepo>()("catalogue/GenresRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext

    /** Genre list entries, whole, by title; with the row count for meta. */
    const listGenres = sql<{ total: number; json: string }>`
      SELECT count(*)::int AS total,
        ${lit(jsonArraySql(genreEntry.json("g", songCount), "lower(g.title), g.id"))}::text AS json
      FROM genres g LEFT JOIN public_genre_counts gc ON gc.genre_id = g.id`.pipe(
      Effect.map((rows) => rows[0] ?? { total: 0, json: "[]" }),
      withSpan("GenresRepo.listGenres")
    )

    /** Genre detail as JSON text; None when no genre has the slug. */
    const findGenre = (slug: string) =>
      sql<{ json: string }>`${lit(publicGenreRows.select)} WHERE g.slug = ${slug}`.pipe(
        Effect.map((rows) => Option.fromNullishOr(rows[0]?.json)),
        withSpan("GenresRepo.findGenre")
      )

    /** The genre's public songs, as /v1/songs?genre= (src/Queries/SongBrowse.ts). found=false: no genre has the slug. */
    const listGenreSongs = (slug: string, sortName: SongSortName, page: PageParamsInput) =>
      songBrowsePage(sql, { genre: slug, sort: sortName }, page, {
        scope: `genre-songs|${slug}|${sortName}`,
        guard: sql`EXISTS (SELECT 1 FROM genres WHERE slug = ${slug})`
      }).pipe(Effect.provide(database), withSpan("GenresRepo.listGenreSongs"))

    return { listGenres, findGenre, listGenreSongs } as const
  })
}) {
  static readonly layer = Layer.effect(GenresRepo, GenresRepo.make)
}
