import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class MetaRepo extends Effect.Service<MetaRepo>()("catalogue/MetaRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Spec 2.13 over public rows only (D11), as JSON text built by Postgres. */
    const statsJson = sql<{ json: string }>`
      SELECT json_build_object(
        'songs', (SELECT count(*) FROM public_songs),
        'artists', (SELECT count(*) FROM public_artists),
        'contributors', (
          SELECT count(DISTINCT c.member_id) FROM contributions c
          JOIN public_members m ON m.id = c.member_id
          JOIN public_songs s ON s.id = c.song_id),
        'credits', (SELECT count(*) FROM credits c JOIN public_songs s ON s.id = c.song_id),
        'earliest_year', coalesce(
          (SELECT extract(year FROM min(released_at))::int FROM public_songs),
          extract(year FROM current_date)::int),
        'genres', (SELECT count(*) FROM genres),
        'labels', (SELECT count(*) FROM labels),
        'recent_releases', json_build_object(
          'count', (SELECT count(*) FROM public_songs
                    WHERE released_at > current_date - 30 AND released_at <= current_date),
          'released_from', iso_date(current_date - 30))
      )::text AS json`.pipe(
      Effect.map((rows) => rows[0]?.json ?? "{}"),
      Effect.orDie,
      Effect.withSpan("MetaRepo.statsJson")
    )

    const ping = sql`SELECT 1`.pipe(Effect.asVoid)

    return { statsJson, ping } as const
  })
}) {}
