import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { keysetPage, type KeysetSort } from "../Queries/Keyset.js"
import { foldedNameContains } from "../Queries/NameFilter.js"
import { songStatusCondition, staffSongSummary } from "../Shapes/Song.js"
import { hiddenSongCountsSql, staffStatsJson } from "../Shapes/Stats.js"
import { MetaRepo } from "../Meta/Repo.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"
import { unsafeFragment } from "../Database/SqlText.js"

export type StaffSongFilter = keyof typeof songStatusCondition

const lit = unsafeFragment

/** Every song, most recently added first (the id), as a song summary with its state. */
const staffSongSort: KeysetSort = {
  source: "songs s",
  alias: "s",
  key: "s.id",
  keyJson: "s.id",
  keyType: "id",
  item: staffSongSummary.json("s"),
  descending: true
}

export class StaffRepo extends Context.Service<StaffRepo>()("catalogue/StaffRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext
    const meta = yield* MetaRepo

    /** One page of songs in `status`, titles containing `q` (folded: case and diacritics ignored). */
    const listStaffSongs = (status: StaffSongFilter, q: string | undefined, page: PageParamsInput) => {
      const filters = [lit(songStatusCondition[status])]
      // folded like the stored titles; folding also turns LIKE's own characters (% _ \\) into spaces
      if (q !== undefined) filters.push(foldedNameContains(sql, q, ["s.search_title"]))
      return keysetPage(staffSongSort, filters, page, `admin-songs|${status}|${q ?? ""}`).pipe(
        Effect.provide(database),
        withSpan("StaffRepo.listStaffSongs")
      )
    }

    const hiddenSongCounts = sql<{ unpublished: number; deleted: number }>`${lit(hiddenSongCountsSql)}`

    /** Catalogue statistics (public counts, from the Meta group) plus unpublished and deleted songs, as JSON text. */
    const getStaffStats = Effect.all([meta.getCatalogueStats, hiddenSongCounts], { concurrency: 2 }).pipe(
      Effect.map(([stats, [hidden]]) => staffStatsJson(stats, hidden ?? { unpublished: 0, deleted: 0 })),
      withSpan("StaffRepo.getStaffStats")
    )

    return { listStaffSongs, getStaffStats } as const
  })
}) {
  static readonly layer = Layer.effect(StaffRepo, StaffRepo.make).pipe(Layer.provide(MetaRepo.layer))
}
