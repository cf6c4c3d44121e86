import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { catalogueStats } from "../Shapes/Stats.js"
import { withSpan } from "../Spans.js"
import { unsafeFragment } from "../Database/SqlText.js"

export class MetaRepo extends Context.Service<MetaRepo>()("catalogue/MetaRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Catalogue statistics as JSON text built by Postgres. */
    const getCatalogueStats = sql<{ json: string }>`
      SELECT ${unsafeFragment(catalogueStats.json("pc"))}::text AS json FROM public_catalogue_totals pc`.pipe(
      Effect.map((rows) => rows[0]?.json ?? "{}"),
      withSpan("MetaRepo.getCatalogueStats")
    )

    const ping = sql`SELECT 1`.pipe(Effect.asVoid)

    return { getCatalogueStats, ping } as const
  })
}) {
  static readonly layer = Layer.effect(MetaRepo, MetaRepo.make)
}
