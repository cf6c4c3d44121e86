import * as SqlClient from "effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "./Config.js"
import { DatabaseMode } from "./Database.js"
import { metricsWanted, setReplayLag } from "./Metrics.js"

/** How often the lag is read: a gauge a few seconds old says enough, and costs the pool one short statement. */
export const REPLAY_LAG_EVERY = "5 seconds"

/**
 * A standby's replay lag as `catalogue.database.replay_lag` (docs/operations.md, "Metrics"),
 * read in the background every few seconds, never on a request's path. On a primary (or a
 * standby since promoted) the statement gives NULL and the series is absent; when the database
 * does not answer, it is absent too, as the lag is then unknown. PostgreSQL only: the embedded
 * database is never a standby. A standby streaming from its primary that has replayed all it
 * received is 0 behind (a primary without writes would otherwise make the lag grow); else the lag
 * counts from the commit time of the last transaction replayed.
 */
export const ReplayLagLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const mode = yield* DatabaseMode
    if (!metricsWanted(config) || mode.kind !== "postgres") return
    const sql = yield* SqlClient.SqlClient
    const read = sql<{ readonly lag: number | null }>`
      SELECT CASE
        WHEN NOT pg_is_in_recovery() THEN NULL
        WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
          AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN 0
        ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS lag`.pipe(
      Effect.map(([row]) => row?.lag ?? undefined),
      Effect.orElseSucceed(() => undefined),
      Effect.flatMap((lag) => Effect.sync(() => setReplayLag(lag))),
      Effect.withTracerEnabled(false)
    )
    yield* Effect.forkScoped(Effect.repeat(read, Schedule.spaced(REPLAY_LAG_EVERY)))
    yield* Effect.addFinalizer(() => Effect.sync(() => setReplayLag(undefined)))
  })
)
