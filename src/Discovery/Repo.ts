import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { discovery, discoveryListsSql, discoverySongsSql } from "../Shapes/Discovery.js"
import { DISCOVERY_SIZE } from "./Api.js"
import { withSpan } from "../Spans.js"
import { unsafeFragment } from "../Database/SqlText.js"

const lit = unsafeFragment

/** Up to DISCOVERY_SIZE public songs `s` matching `where`, in `order`, as a JSON array. */
const songsSql = (where: string, order: string) =>
  discoverySongsSql(`(SELECT * FROM public_songs s WHERE ${where} ORDER BY ${order} LIMIT ${DISCOVERY_SIZE})`, order)

/**
 * The four selections in one statement. Every order is total (ends with the id), so the answer is the same all
 * day for the same data. Each selection walks an index of sql/schema/2_catalogue.sql.
 */
const discoverySql = `SELECT ${
  discovery.json(
    songsSql("s.released_at > current_date - 30 AND s.released_at <= current_date", "s.released_at DESC, s.id DESC"),
    songsSql("s.vidsvc_views_per_day IS NOT NULL", "s.vidsvc_views_per_day DESC NULLS LAST, s.id DESC"),
    discoveryListsSql(
      `(SELECT * FROM public_curated_lists l ORDER BY l.updated_at DESC, l.id DESC LIMIT ${DISCOVERY_SIZE})`,
      "l.updated_at DESC, l.id DESC"
    ),
    songsSql(
      `s.date_type = 'FULL'
     AND extract(month FROM s.released_at) = extract(month FROM current_date)
     AND extract(day FROM s.released_at) = extract(day FROM current_date)
     AND s.released_at < date_trunc('year', current_date)`,
      "s.vidsvc_views DESC NULLS LAST, s.released_at DESC, s.id DESC"
    )
  )
}::text AS json`

export class DiscoveryRepo extends Context.Service<DiscoveryRepo>()("catalogue/DiscoveryRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const getDiscovery = sql<{ json: string }>`${lit(discoverySql)}`.pipe(
      Effect.map((rows) => rows[0]?.json ?? "{}"),
      withSpan("DiscoveryRepo.getDiscovery")
    )
    return { getDiscovery } as const
  })
}) {
  static readonly layer = Layer.effect(DiscoveryRepo, DiscoveryRepo.make)
}
