import * as SqlClient from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { keysetPage, type KeysetSort } from "../Queries/Keyset.js"
import { foldedNameContains } from "../Queries/NameFilter.js"
import { label } from "../Shapes/Label.js"
import type { PublicRows } from "../Queries/Detail.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { songBrowsePage } from "../Queries/SongBrowse.js"
import type { SongSortName } from "../Queries/SongSorts.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"
import { unsafeFragment } from "../Database/SqlText.js"

export type LabelSort = "name" | "total_songs" | "album_count"

export interface LabelListQuery {
  readonly q?: string | undefined
  readonly sort?: LabelSort | undefined
  readonly order?: "asc" | "desc" | undefined
}

/**
 * Every label with its public counts; all labels are public, none has a state. The counts are
 * public_label_counts: kept settled songs plus due ones, live albums minus those in
 * scheduled_label_albums; a few small rows per label, so all 2,000 are sorted on each request.
 */
const countedLabels = `(
  SELECT l.id, l.name, l.slug, l.formerly_known_as, l.search_name, l.search_former_name,
         lower(l.name) AS sort_name,
         coalesce(c.song_count, 0)::int AS song_count,
         coalesce(c.album_count, 0)::int AS album_count
  FROM labels l
  LEFT JOIN public_label_counts c ON c.label_id = l.id) l`

/** Label for row `l` of countedLabels (formerly_known_as "" when absent). */
const labelJson = label.json("l", { songCount: "l.song_count", albumCount: "l.album_count" })

/** Every label's detail, by id: the detail reads one, the snapshots all. */
export const publicLabelRows: PublicRows = { select: `SELECT ${labelJson}::text AS json FROM ${countedLabels}`, key: "l.id" }

const labelSorts: Record<LabelSort, Omit<KeysetSort, "descending"> & { readonly defaultDescending: boolean }> = {
  name: { source: countedLabels, alias: "l", key: "l.sort_name", keyJson: "l.sort_name", keyType: "text", item: labelJson, defaultDescending: false },
  total_songs: { source: countedLabels, alias: "l", key: "l.song_count", keyJson: "l.song_count", keyType: "int", item: labelJson, defaultDescending: true },
  album_count: { source: countedLabels, alias: "l", key: "l.album_count", keyJson: "l.album_count", keyType: "int", item: labelJson, defaultDescending: true }
}

export class LabelsRepo extends Context.Service<LabelsRepo>()("catalogue/LabelsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext

    /** Labels with their q, sort and order. */
    const listLabels = (query: LabelListQuery, page: PageParamsInput) => {
      const sortName = query.sort ?? "total_songs"
      const { defaultDescending, ...sort } = labelSorts[sortName]
      const descending = query.order === undefined ? defaultDescending : query.order === "desc"
      const filters: Array<Statement.Fragment> = []
      if (query.q !== undefined) {
        filters.push(foldedNameContains(sql, query.q, ["l.search_name", "l.search_former_name"]))
      }
      const scope = `labels|${sortName}|${descending ? "desc" : "asc"}|q=${query.q ?? ""}`
      return keysetPage({ ...sort, descending }, filters, page, scope).pipe(
        Effect.provide(database),
        withSpan("LabelsRepo.listLabels")
      )
    }

    /** One label as JSON text; None when there is no such label. */
    const findLabel = (labelId: number) =>
      sql<{ json: string }>`${unsafeFragment(publicLabelRows.select)} WHERE l.id = ${labelId}`.pipe(
        Effect.map((rows) => Option.fromNullishOr(rows[0]?.json)),
        withSpan("LabelsRepo.findLabel")
      )

    /** The label's public songs, as /v1/songs?label= (src/Queries/SongBrowse.ts). found=false: no such label. */
    const listLabelSongs = (labelId: number, sortName: SongSortName, page: PageParamsInput) =>
      songBrowsePage(sql, { label: labelId, sort: sortName }, page, {
        scope: `label-songs|${labelId}|${sortName}`,
        guard: sql`EXISTS (SELECT 1 FROM labels WHERE id = ${labelId})`
      }).pipe(Effect.provide(database), withSpan("LabelsRepo.listLabelSongs"))

    return { listLabels, findLabel, listLabelSongs } as const
  })
}) {
  static readonly layer = Layer.effect(LabelsRepo, LabelsRepo.make)
}
