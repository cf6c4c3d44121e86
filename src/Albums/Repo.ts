import * as SqlClient from "effect/sql/SqlClient"
import { batchLookup, ID_KEY } from "../Queries/Batch.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { keysetPage, type TableKeysetSort } from "../Queries/Keyset.js"
import { steered } from "../Queries/SteeredPage.js"
import { databaseContext, Statements } from "../Database.js"
import { albumDetail, albumSource, staffAlbumDetail } from "../Shapes/Album.js"
import { detailReader, type PublicRows } from "../Queries/Detail.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { type Audience, listAlbumEntry } from "../Shapes/Song.js"
import { withSpan } from "../Spans.js"

/**
 * One album's detail in one statement. Staff see every album and every track, each song
 * with its `status`, and the album's `status` at the end.
 */
const albumRows = (audience: Audience) => `
  SELECT ${audience === "public" ? albumDetail.json("al") : staffAlbumDetail.json("al")}::text AS json
  FROM ${albumSource(audience)} al`

const albumDetailSql = (audience: Audience) => `${albumRows(audience)}
  WHERE al.id = `

/** Every public album's detail, by id (the snapshots). */
export const publicAlbumRows: PublicRows = { select: albumRows("public"), key: "al.id" }

export type AlbumSortName = "released" | "title"

/** The sorts of /v1/albums; albums without a date sort as the oldest. */
const albumSorts: Record<AlbumSortName, Omit<TableKeysetSort, "descending">> = {
  released: {
    source: "public_albums al",
    alias: "al",
    key: "coalesce(al.released_at, DATE '0001-01-01')",
    keyJson: "iso_date(coalesce(al.released_at, DATE '0001-01-01'))",
    keyType: "date",
    item: listAlbumEntry.json("al", "public")
  },
  title: {
    source: "public_albums al",
    alias: "al",
    key: "lower(al.title)",
    keyJson: "lower(al.title)",
    keyType: "text",
    item: listAlbumEntry.json("al", "public")
  }
}

export interface AlbumBrowse {
  readonly type?: "album" | "ep" | "single" | undefined
  readonly sort?: AlbumSortName | undefined
  readonly order?: "asc" | "desc" | undefined
}

export class AlbumsRepo extends Context.Service<AlbumsRepo>()("catalogue/AlbumsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext
    const statements = yield* Statements

    /** Album detail as JSON text; None when the audience may not see the album. */
    const findAlbum = detailReader(sql, statements, albumDetailSql, "AlbumsRepo.findAlbum")

    /** Browse of public albums as list album entries. */
    const listAlbums = (browse: AlbumBrowse, page: PageParamsInput) => {
      const sortName = browse.sort ?? "released"
      const order = browse.order ?? (sortName === "title" ? "asc" : "desc")
      const filters = browse.type === undefined ? [] : [sql`al.album_type = ${browse.type}`]
      const scope = `albums|${sortName}|${order}|t=${browse.type ?? ""}`
      // kept counts instead of counting the albums
      const total = browse.type === undefined
        ? sql`SELECT coalesce(sum(album_count), 0) FROM public_album_type_counts`
        : sql`SELECT coalesce((SELECT album_count FROM public_album_type_counts WHERE album_type = ${browse.type}), 0)`
      // the exact kept total steers the walk: none past the end, the second half from the end;
      // index-only, the page's rows read alone. A type is a third of the albums or more: always walked in order
      const steer = steered({ deferred: true })
      return keysetPage({ ...albumSorts[sortName], descending: order === "desc" }, filters, page, scope, { total, steer }).pipe(
        Effect.provide(database),
        withSpan("AlbumsRepo.listAlbums")
      )
    }

    /** `ids=`: the asked public albums' list entries, in the order asked. */
    const listAlbumsByIds = (ids: ReadonlyArray<number>) =>
      batchLookup("public_albums al", "al", listAlbumEntry.json("al", "public"), ID_KEY, ids).pipe(
        Effect.provide(database),
        withSpan("AlbumsRepo.listAlbumsByIds")
      )

    return { findAlbum, listAlbums, listAlbumsByIds } as const
  })
}) {
  static readonly layer = Layer.effect(AlbumsRepo, AlbumsRepo.make)
}
