import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Statement from "@effect/sql/Statement"
import { catalogueStats } from "../Domain/Stats.js"
import { withSpan } from "../Spans.js"

export class MetaRepo extends Effect.Service<MetaRepo>()("catalogue/MetaRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Catalogue statistics as JSON text built by Postgres. */
    const getCatalogueStats = sql<{ json: string }>`
      SELECT ${Statement.unsafeFragment(catalogueStats.json("pc"))}::text AS json FROM public_catalogue_totals pc`.pipe(
      Effect.map((rows) => rows[0]?.json ?? "{}"),
      Effect.orDie,
      withSpan("MetaRepo.getCatalogueStats")
    )

    const ping = sql`SELECT 1`.pipe(Effect.asVoid)

    return { getCatalogueStats, ping } as const
  })
}) {}
