/**
 * Effect's SQL client (effect/sql) over the statement runner (src/Database/Runner.ts): repositories compose
 * statements with its `sql` template and run them as before; it compiles them (with
 * @effect/sql-pg's compiler) and opens their `sql.execute` span, and the runner sends them.
 */
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type pg from "pg"
import type { Runner, Send } from "./Runner.js"

/** Rows of a result; a text of several statements (a migration) has one result each. */
const rowsOf = (result: pg.QueryResult | ReadonlyArray<pg.QueryResult>): ReadonlyArray<any> =>
  Array.isArray(result) ? result.map((one: pg.QueryResult) => one.rows ?? []) : (result as pg.QueryResult).rows ?? []

const connectionOver = (runner: Runner, send: Send): SqlConnection.Connection => {
  const execute = (
    text: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => {
    const rows = Effect.map(send(runner.sendable(text, params)), rowsOf)
    return transformRows === undefined ? rows : Effect.map(rows, transformRows)
  }
  return {
    execute,
    executeUnprepared: execute,
    executeRaw: (text, params) => send(runner.sendable(text, params)),
    executeValues: (text, params) => Effect.map(send({ ...runner.sendable(text, params), rowMode: "array" }), (result) => result.rows),
    executeValuesUnprepared: (text, params) =>
      Effect.map(send({ ...runner.sendable(text, params), rowMode: "array" }), (result) => result.rows),
    executeStream: (text, params, transformRows) => Stream.fromIterableEffect(execute(text, params, transformRows))
  }
}

/** The SqlClient: each statement on any pooled connection; a transaction on one held for it. */
export const makeSqlClient = (
  runner: Runner,
  spanAttributes: ReadonlyArray<readonly [string, unknown]>,
  transactionService: ReturnType<typeof SqlClient.TransactionConnection>
) =>
  SqlClient.make({
    transactionService,
    acquirer: Effect.succeed(connectionOver(runner, runner.send)),
    transactionAcquirer: Effect.map(runner.reserve, (send) => connectionOver(runner, send)),
    compiler: PgClient.makeCompiler(),
    driver: "pg",
    spanAttributes
  })
