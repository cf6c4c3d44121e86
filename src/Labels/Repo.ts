import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { keysetPage, type KeysetSort } from "../Domain/Keyset.js"
import { label } from "../Domain/Label.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import { DEFAULT_LIMIT } from "../Domain/Params.js"
import { ownSongSort, songSort, songSortDescendingByDefault, type SongSortName } from "../Domain/SongSorts.js"
import { steered } from "../Domain/SteeredPage.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"

export type LabelSort = "name" | "total_songs" | "album_count"

export interface LabelListQuery {
  readonly q?: string | undefined
  readonly sort?: LabelSort | undefined
  readonly order?: "asc" | "desc" | undefined
}

/**
 * Every label with its public counts; all labels are public, none has a state. The counts are
 * sql/0017's public_label_counts: kept settled songs plus due ones, live albums minus those in
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

const labelSorts: Record<LabelSort, Omit<KeysetSort, "descending"> & { readonly defaultDescending: boolean }> = {
  name: { source: countedLabels, alias: "l", key: "l.sort_name", keyJson: "l.sort_name", keyType: "text", item: labelJson, defaultDescending: false },
  total_songs: { source: countedLabels, alias: "l", key: "l.song_count", keyJson: "l.song_count", keyType: "int", item: labelJson, defaultDescending: true },
  album_count: { source: countedLabels, alias: "l", key: "l.album_count", keyJson: "l.album_count", keyType: "int", item: labelJson, defaultDescending: true }
}

export class LabelsRepo extends Effect.Service<LabelsRepo>()("catalogue/LabelsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext

    /** Labels with their q, sort and order. */
    const listLabels = (query: LabelListQuery, page: PageParamsInput) => {
      const sortName = query.sort ?? "total_songs"
      const { defaultDescending, ...sort } = labelSorts[sortName]
      const descending = query.order === undefined ? defaultDescending : query.order === "desc"
      const filters: Array<Statement.Fragment> = []
      if (query.q !== undefined) {
        filters.push(sql`(l.search_name LIKE '%' || fold_name(${query.q}) || '%'
                          OR l.search_former_name LIKE '%' || fold_name(${query.q}) || '%')`)
      }
      const scope = `labels|${sortName}|${descending ? "desc" : "asc"}|q=${query.q ?? ""}`
      return keysetPage({ ...sort, descending }, filters, page, scope).pipe(
        Effect.provide(database),
        withSpan("LabelsRepo.listLabels")
      )
    }

    /** One label as JSON text; None when there is no such label. */
    const findLabel = (labelId: number) =>
      sql<{ json: string }>`SELECT ${Statement.unsafeFragment(labelJson)}::text AS json
        FROM ${Statement.unsafeFragment(countedLabels)} WHERE l.id = ${labelId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.json)),
        Effect.orDie,
        withSpan("LabelsRepo.findLabel")
      )

    /**
     * The label's public songs. found=false: no such label. Newest and most watched first walk
     * the label's own kept order (ownSongSort). By title: a label with few songs is read
     * through its links and sorted; a big one walks the sort's index, probing its links, until
     * the page is full. The walk reads about (offset + limit) x catalogue / label songs rows, the
     * links the label's songs: links first when label songs^2 < (offset + limit) x catalogue.
     */
    const listLabelSongs = (labelId: number, sortName: SongSortName, page: PageParamsInput) =>
      Effect.gen(function*() {
        const scope = `label-songs|${labelId}|${sortName}`
        const guard = sql`EXISTS (SELECT 1 FROM labels WHERE id = ${labelId})`
        const total = sql`SELECT public_label_song_count(${labelId})`
        // newest or most watched: the label's own kept order, one index range walked from the nearer end
        const own = ownSongSort("label", sortName, songSortDescendingByDefault[sortName])
        if (own !== undefined) {
          return yield* keysetPage(own, [sql`s.order_owner = ${labelId}`], page, scope, { guard, total, steer: steered({}) })
        }
        const [sizes] = yield* sql<{ songs: number; catalogue: number }>`
          SELECT public_label_song_count(${labelId})::float8 AS songs,
                 (SELECT live_songs FROM catalogue_counts)::float8 AS catalogue`.pipe(Effect.orDie)
        const reach = (page.cursor === undefined ? page.offset ?? 0 : 0) + (page.limit ?? DEFAULT_LIMIT)
        const viaLinks = sizes !== undefined && sizes.songs * sizes.songs < reach * sizes.catalogue
        const filter = viaLinks
          ? sql`s.id = ANY (ARRAY(SELECT sl.song_id FROM song_labels sl WHERE sl.label_id = ${labelId}))`
          : sql`EXISTS (SELECT 1 FROM song_labels sl WHERE sl.song_id = s.id AND sl.label_id = ${labelId})`
        return yield* keysetPage(songSort(sortName), [filter], page, scope, { guard, total })
      }).pipe(Effect.provide(database), withSpan("LabelsRepo.listLabelSongs"))

    return { listLabels, findLabel, listLabelSongs } as const
  })
}) {}
