/**
 * The SQL client spike's clients (./sql-clients.ts): an Effect `SqlClient` over the service's own
 * query path (`pg` and src/Database/Runner.ts) or over `@effect/sql-pg`'s own wire client, with
 * and without `multiplex`, each a pool of `poolSize` with the service's session settings.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { queryPathLayer } from "../../src/Database.js"

type Row = Record<string, unknown>

/** The service's bounds at its defaults (src/Config.ts): a connection within 1 s, an answer within the statement timeout and its margin. */
const BOUNDS = { acquireMs: 1_000, queryMs: 6_000 }

export const effectClientQuery = (
  driver: "runner" | "pgclient" | "pgclient-multiplex",
  url: string,
  session: Record<string, string>,
  /** `session` as startup options (`-c name=value`), as the service's pool sends them */
  options: string,
  poolSize: number
) => {
  const layer: Layer.Layer<SqlClient.SqlClient, unknown> = driver === "runner"
    ? queryPathLayer({ connectionString: url, max: poolSize, options }, BOUNDS)
    : PgClient.layer({
      url: Redacted.make(url),
      maxConnections: poolSize,
      startupParameters: session,
      multiplex: driver === "pgclient-multiplex"
    })
  const runtime = ManagedRuntime.make(layer)
  return (_name: string, text: string, params: ReadonlyArray<unknown>): Promise<Array<Row>> =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Row>(text, params))) as Promise<Array<Row>>
}
