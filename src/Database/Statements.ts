/**
 * Fixed statements of one key (a detail by id), the hottest reads: composed once with the `sql`
 * template, compiled, named and described once, then sent through the runner
 * (src/Database/Runner.ts) without @effect/sql's per-statement work (compile, transformer,
 * scope): ~75 against ~160 us of CPU a statement, measured 20 at a time in process. They keep
 * what matters of it: the `sql.execute` client span with the same attributes (the text, never
 * the values), and a SqlError on failure.
 */
import type * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withSpan } from "../Spans.js"
import type { Runner, Sendable } from "./Runner.js"

/** A statement fixed once; its key goes in at `at` of its values. */
export interface Prepared<K, A> {
  readonly text: string
  readonly values: (key: K) => Array<unknown>
  readonly run: (key: K) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
}

export interface StatementsShape {
  /**
   * `compose` places the key with the `sql` template, e.g.
   * `(id) => sql`SELECT ... WHERE s.id = ${id}``; it must use it exactly once.
   */
  readonly prepare: <K, A extends object>(compose: (key: K) => Statement.Statement<A>) => Prepared<K, A>
  /** A prepared statement's rows for one key. */
  readonly run: <K, A>(prepared: Prepared<K, A>, key: K) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
  /**
   * A statement composed per request on a hot path (a list page), sent as the prepared reads
   * are: compiled, then sent under the same `sql.execute` span, without @effect/sql's
   * per-statement steps (its span and scope, the transformer and transaction look-ups, the
   * connection acquirer). The same rows and SqlError as `yield* statement`, which it is inside a
   * transaction and under a statement transformer (the bench's capture).
   */
  readonly runComposed: <A extends object>(statement: Statement.Statement<A>) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
}

export class Statements extends Context.Service<Statements, StatementsShape>()("catalogue/Statements") {}

/** What compose receives while compiling: found again in the compiled values by identity. */
const KEY = Symbol("key")

/**
 * A compiled statement sent through the runner under the client span @effect/sql opens for it:
 * `sql.execute` with the same attributes (the text, never the values); its rows, or a SqlError.
 */
export const makeTracedSend = (runner: Runner, spanAttributes: ReadonlyArray<readonly [string, unknown]>) => {
  const described = { ...Object.fromEntries(spanAttributes), "db.operation.name": "execute" }
  return <A>(sendable: Sendable): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> =>
    Effect.map(runner.send(sendable), (result) => result.rows as ReadonlyArray<A>).pipe(
      withSpan("sql.execute", () => ({ kind: "client", attributes: { ...described, "db.query.text": sendable.text } }))
    )
}

export const makeStatements = (
  runner: Runner,
  spanAttributes: ReadonlyArray<readonly [string, unknown]>,
  transactions: Context.Key<unknown, unknown>
): StatementsShape => {
  const send = makeTracedSend(runner, spanAttributes)
  const prepare = <K, A extends object>(compose: (key: K) => Statement.Statement<A>): Prepared<K, A> => {
    const [text, compiled] = compose(KEY as K).compile()
    const at = compiled.indexOf(KEY)
    if (at < 0 || compiled.lastIndexOf(KEY) !== at) {
      throw new Error(`a prepared statement takes its key exactly once: ${text.slice(0, 80)}`)
    }
    const name = runner.sendable(text, compiled).name
    const values = (key: K) => {
      const filled = compiled.slice()
      filled[at] = key
      return filled
    }
    const run = (key: K) => send<A>({ name, text, values: values(key) })
    return { text, values, run }
  }
  const runComposed = <A extends object>(statement: Statement.Statement<A>) =>
    Effect.withFiber<ReadonlyArray<A>, SqlError.SqlError>((fiber) => {
      if (
        fiber.getRef(Statement.CurrentTransformer) !== undefined ||
        Option.isSome(Context.getOption(fiber.context, transactions))
      ) {
        return statement
      }
      const [text, values] = statement.compile()
      return send<A>(runner.sendable(text, values))
    })
  return { prepare, run: (prepared, key) => prepared.run(key), runComposed }
}
