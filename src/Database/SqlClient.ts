/**
 * @effect/sql's client over the statement runner (src/Database/Runner.ts): repositories compose
 * statements with its `sql` template and run them as before; @effect/sql compiles them (with
 * @effect/sql-pg's compiler) and opens their `sql.execute` span, and the runner sends them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type * as SqlError from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type pg from "pg"
import type { Runner, Send } from "./Runner.js"
import { makeTracedSend } from "./Statements.js"

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
    executeStream: (text, params, transformRows) => Stream.fromIterableEffect(execute(text, params, transformRows))
  }
}

/** Each client made here, with how a compiled statement is sent straight to its runner. */
const directSends = new WeakMap<SqlClient.SqlClient, (text: string, values: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<any>, SqlError.SqlError>>()

/** The SqlClient: each statement on any pooled connection; a transaction on one held for it. */
export const makeSqlClient = (runner: Runner, spanAttributes: ReadonlyArray<readonly [string, unknown]>) =>
  Effect.tap(
    SqlClient.make({
      acquirer: Effect.succeed(connectionOver(runner, runner.send)),
      transactionAcquirer: Effect.map(runner.reserve, (send) => connectionOver(runner, send)),
      compiler: PgClient.makeCompiler(),
      spanAttributes
    }),
    (client) => {
      const send = makeTracedSend(runner, spanAttributes)
      directSends.set(client, (text, values) => send(runner.sendable(text, values)))
    }
  )

/**
 * A statement composed per request on a hot path (a list page), run as the prepared reads are:
 * compiled, then sent by the runner under the same `sql.execute` span, without @effect/sql's
 * per-statement steps (its span and scope, the transformer and transaction look-ups, the
 * connection acquirer). The same rows and SqlError as `yield* statement`, which it is inside a
 * transaction, under a statement transformer (the bench's capture) or on another client.
 */
export const runStatement = <A extends object>(
  sql: SqlClient.SqlClient,
  statement: Statement.Statement<A>
): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> =>
  Effect.withFiberRuntime((fiber) => {
    const send = directSends.get(sql)
    if (
      send === undefined || Option.isSome(fiber.getFiberRef(Statement.currentTransformer)) ||
      Option.isSome(Context.getOption(fiber.currentContext, SqlClient.TransactionConnection))
    ) {
      return statement
    }
    const [text, values] = statement.compile()
    return send(text, values) as Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
  })
