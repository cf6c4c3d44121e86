import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import type { PageParamsInput } from "../Domain/Pagination.js"
import { keysetPage, type KeysetSort } from "../Domain/Keyset.js"
import { jsonObjectSql } from "../Domain/JsonSql.js"
import { songStatusSql, songSummaryFieldsSql } from "../Domain/Song.js"
import { MetaRepo } from "../Meta/Repo.js"
import { withSpan } from "../Spans.js"

export type StaffSongFilter = "published" | "unpublished" | "deleted" | "all"

const lit = Statement.unsafeFragment

/** Each status as fixed SQL over songs row `s` (a closed set: statement texts stay bounded). */
const statusCondition: Record<StaffSongFilter, string> = {
  published: "s.deleted_at IS NULL AND s.published_at <= now()",
  unpublished: "s.deleted_at IS NULL AND (s.published_at IS NULL OR s.published_at > now())",
  deleted: "s.deleted_at IS NOT NULL",
  all: "TRUE"
}

/** Every song, most recently added first (the id), as a song summary with its state. */
const staffSongSort: KeysetSort = {
  source: "songs s",
  alias: "s",
  key: "s.id",
  keyJson: "s.id",
  keyType: "id",
  item: jsonObjectSql({
    ...songSummaryFieldsSql("s"),
    status: songStatusSql("s"),
    published_at: "iso_time(s.published_at)",
    deleted_at: "iso_time(s.deleted_at)"
  }),
  descending: true
}

export class StaffRepo extends Effect.Service<StaffRepo>()("catalogue/StaffRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const meta = yield* MetaRepo

    /** One page of songs in `status`, titles containing `q` (folded: case and diacritics ignored). */
    const songs = (status: StaffSongFilter, q: string | undefined, page: PageParamsInput) => {
      const filters = [lit(statusCondition[status])]
      // folded like the stored titles; folding also turns LIKE's own characters (% _ \\) into spaces
      if (q !== undefined) filters.push(sql`s.search_title LIKE '%' || fold_name(${q}) || '%'`)
      return keysetPage(staffSongSort, filters, page, `admin-songs|${status}|${q ?? ""}`).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("StaffRepo.songs")
      )
    }

    const songCounts = sql<{ unpublished: number; deleted: number }>`
      SELECT
        count(*) FILTER (WHERE ${lit(statusCondition.unpublished)})::int AS unpublished,
        count(*) FILTER (WHERE ${lit(statusCondition.deleted)})::int AS deleted
      FROM songs s`.pipe(Effect.orDie)

    /** Catalogue statistics (public counts, from the Meta group) plus the hidden songs. */
    const statsJson = Effect.all([meta.statsJson, songCounts], { concurrency: 2 }).pipe(
      Effect.map(([stats, [counts]]) =>
        `${stats.slice(0, -1)},"unpublished_songs":${counts?.unpublished ?? 0},"deleted_songs":${counts?.deleted ?? 0}}`
      ),
      withSpan("StaffRepo.statsJson")
    )

    return { songs, statsJson } as const
  }),
  dependencies: [MetaRepo.Default]
}) {}
