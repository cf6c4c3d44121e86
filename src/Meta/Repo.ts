import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Statement from "@effect/sql/Statement"
import { jsonObjectSql } from "../Domain/JsonSql.js"
import { withSpan } from "../Spans.js"

/** Catalogue statistics over public rows only; kept counts of sql/0006, 0008, 0009. */
const statsJsonSql = jsonObjectSql({
  songs: "pc.songs",
  artists: "pc.artists",
  contributors: "pc.contributors",
  credits: "pc.credits",
  earliest_year: `coalesce(
    (SELECT extract(year FROM min(released_at))::int FROM public_songs),
    extract(year FROM current_date)::int)`,
  genres: "(SELECT count(*) FROM genres)",
  labels: "(SELECT count(*) FROM labels)",
  recent_releases: jsonObjectSql({
    count: "public_songs_released_between(current_date - 29, current_date + 1)",
    released_from: "iso_date(current_date - 30)"
  })
})

export class MetaRepo extends Effect.Service<MetaRepo>()("catalogue/MetaRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Catalogue statistics as JSON text built by Postgres. */
    const statsJson = sql<{ json: string }>`
      SELECT ${Statement.unsafeFragment(statsJsonSql)}::text AS json FROM public_catalogue_totals pc`.pipe(
      Effect.map((rows) => rows[0]?.json ?? "{}"),
      Effect.orDie,
      withSpan("MetaRepo.statsJson")
    )

    const ping = sql`SELECT 1`.pipe(Effect.asVoid)

    return { statsJson, ping } as const
  })
}) {}
