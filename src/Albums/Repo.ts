import * as SqlClient from "@effect/sql/SqlClient"
import { batchLookup } from "../Domain/Batch.js"
import * as Effect from "effect/Effect"
import { keysetPage, type KeysetSort } from "../Domain/Keyset.js"
import { Statements } from "../Database.js"
import { jsonById } from "../Domain/Detail.js"
import { jsonArraySql, jsonObjectSql } from "../Domain/JsonSql.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import {
  albumArtistsJsonSql,
  albumSongEntryJsonSql,
  artworkColorsJsonSql,
  type Audience,
  listAlbumEntryJsonSql,
  PLACEHOLDER,
  publicationStatusSql,
  songsOf
} from "../Domain/Song.js"
import { withSpan } from "../Spans.js"


/** The albums an audience may see: a view or table name, fixed text. */
export const albumsOf = (audience: Audience) => (audience === "public" ? "public_albums" : "albums")

/**
 * One album's detail in one statement. Staff see every album and every track, each song
 * with its `status`, and the album's `status` at the end.
 */
const albumDetailSql = (audience: Audience) => `
  SELECT ${
  jsonObjectSql({
    id: "al.id",
    title: "al.title",
    album_type: "al.album_type",
    artwork_url: `asset_url(al.artwork_key, '${PLACEHOLDER.albumArtwork}')`,
    released_at: `coalesce(iso_date(al.released_at),
      (SELECT iso_date(min(ts.released_at)) FROM album_tracks t JOIN ${songsOf(audience)} ts ON ts.id = t.song_id
       WHERE t.album_id = al.id), '')`,
    artists: albumArtistsJsonSql("al", audience),
    songs: `(
      SELECT ${jsonArraySql(albumSongEntryJsonSql("ts", "t.position", audience), "t.position")}
      FROM album_tracks t JOIN ${songsOf(audience)} ts ON ts.id = t.song_id
      WHERE t.album_id = al.id)`,
    artwork_colors: artworkColorsJsonSql("al"),
    ...(audience === "staff" ? { status: publicationStatusSql("al") } : {})
  })
}::text AS json
  FROM ${albumsOf(audience)} al
  WHERE al.id = `

export type AlbumSortName = "released" | "title"

/** The sorts of /v1/albums; albums without a date sort as the oldest. */
const albumSorts: Record<AlbumSortName, Omit<KeysetSort, "descending">> = {
  released: {
    source: "public_albums al",
    alias: "al",
    key: "coalesce(al.released_at, DATE '0001-01-01')",
    keyJson: "iso_date(coalesce(al.released_at, DATE '0001-01-01'))",
    keyType: "date",
    item: listAlbumEntryJsonSql("al", "public")
  },
  title: {
    source: "public_albums al",
    alias: "al",
    key: "lower(al.title)",
    keyJson: "lower(al.title)",
    keyType: "text",
    item: listAlbumEntryJsonSql("al", "public")
  }
}

export interface AlbumBrowse {
  readonly type?: "album" | "ep" | "single" | undefined
  readonly sort?: AlbumSortName | undefined
  readonly order?: "asc" | "desc" | undefined
}

export class AlbumsRepo extends Effect.Service<AlbumsRepo>()("catalogue/AlbumsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Statements
    const byId = (textBeforeId: string) => jsonById(statements, (id) => sql<{ json: string }>`${sql.literal(textBeforeId)}${id}`)
    const detailById = { public: byId(albumDetailSql("public")), staff: byId(albumDetailSql("staff")) } as const

    /** Album detail as JSON text; None when the audience may not see the album. */
    const albumDetailJson = (albumId: number, audience: Audience) =>
      detailById[audience](albumId).pipe(
        Effect.orDie,
        withSpan("AlbumsRepo.albumDetailJson")
      )

    /** Browse of public albums as list album entries. */
    const browseAlbums = (browse: AlbumBrowse, page: PageParamsInput) => {
      const sortName = browse.sort ?? "released"
      const order = browse.order ?? (sortName === "title" ? "asc" : "desc")
      const filters = browse.type === undefined ? [] : [sql`al.album_type = ${browse.type}`]
      const scope = `albums|${sortName}|${order}|t=${browse.type ?? ""}`
      // kept counts of sql/0006 instead of counting the albums
      const total = browse.type === undefined
        ? sql`SELECT coalesce(sum(album_count), 0) FROM public_album_type_counts`
        : sql`SELECT coalesce((SELECT album_count FROM public_album_type_counts WHERE album_type = ${browse.type}), 0)`
      return keysetPage({ ...albumSorts[sortName], descending: order === "desc" }, filters, page, scope, { total }).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("AlbumsRepo.browseAlbums")
      )
    }

    /** `ids=`: the asked public albums' list entries, in the order asked. */
    const albumsByIds = (ids: ReadonlyArray<number>) =>
      batchLookup("public_albums al", "al", listAlbumEntryJsonSql("al", "public"), ids).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("AlbumsRepo.albumsByIds")
      )

    return { albumDetailJson, browseAlbums, albumsByIds } as const
  })
}) {}
