/**
 * The last step of every statement (docs/operations.md, "The query path"): @effect/sql's
 * (src/Database/SqlClient.ts) and the fixed by-key reads (src/Database/Statements.ts) alike are
 * sent here, on a connection of the pool, and nowhere else.
 *
 * - A statement with parameters is named by a hash of its text, so each connection plans it once.
 * - Bounded waiting: a connection within `acquireMs`, an answer within `queryMs`, or the caller
 *   gets a DatabaseFault. A connection past its deadline or lost under a statement goes back with
 *   that error, which makes the pool remove (and close) it: it is never handed on.
 * - A statement whose caller went away (interrupted) keeps its connection until it is answered
 *   or its deadline passes, so no one else's statement queues behind it.
 *
 * Only pg's public interface: `pool.connect`, `client.query`, `client.release(error)`.
 */
import type * as SqlError from "effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import type pg from "pg"
import { DatabaseFault, sqlError } from "./Faults.js"

/** Past this many distinct statement texts (a runaway caller), statements stay unnamed. */
const MAX_NAMES = 2000

export interface WaitingBounds {
  readonly acquireMs: number
  /** the server cancels at its statement timeout; past this it is not answering at all */
  readonly queryMs: number
}

/** What is sent: pg's query config, named or not. */
export interface Sendable {
  readonly name?: string | undefined
  readonly text: string
  readonly values: Array<unknown>
  readonly rowMode?: "array" | undefined
}

export type Send = (query: Sendable) => Effect.Effect<pg.QueryResult, SqlError.SqlError>

export interface Runner {
  /** the statement's name: one per distinct text with parameters */
  readonly sendable: (text: string, values: ReadonlyArray<unknown>) => Sendable
  /** one statement on whichever connection the pool gives */
  readonly send: Send
  /** a connection held for a scope (a transaction): its statements run on it, in order */
  readonly reserve: Effect.Effect<Send, SqlError.SqlError, Scope.Scope>
}

type Answered = (error: Error | undefined, result: pg.QueryResult | undefined, unfit: boolean) => void

const failed = (error: Error) => sqlError(error, "Failed to execute statement")

/**
 * `query` on `client`, answered once: its result or its error, or a DatabaseFault when the
 * deadline passes or the connection is lost (`unfit`: the connection must not be reused).
 */
const submit = (client: pg.PoolClient, query: Sendable, queryMs: number | undefined, answered: Answered) => {
  let done = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const answer = (error: Error | undefined, result: pg.QueryResult | undefined, unfit: boolean) => {
    if (done) return
    done = true
    if (timer !== undefined) clearTimeout(timer)
    client.removeListener("error", lost)
    answered(error, result, unfit)
  }
  // pg emits a lost connection here first, and fails the statement with an uncoded error after
  const lost = (cause: Error) => answer(new DatabaseFault("lost", 0, { cause }), undefined, true)
  client.on("error", lost)
  if (queryMs !== undefined) {
    timer = setTimeout(() => answer(new DatabaseFault("query", queryMs), undefined, true), queryMs)
  }
  try {
    client.query(query as pg.QueryConfig, (error: Error | null | undefined, result: pg.QueryResult) =>
      answer(error ?? undefined, result, false))
  } catch (error) {
    // refused before it was sent
    answer(error as Error, undefined, false)
  }
}

/** `waited`: how long each wait for a connection took (the pool's metrics). */
export const makeRunner = (pool: pg.Pool, bounds: WaitingBounds | undefined, waited: (ms: number) => void = () => undefined): Runner => {
  const names = new Map<string, string>()
  const sendable = (text: string, values: ReadonlyArray<unknown>): Sendable => {
    if (values.length === 0) return { text, values: [] }
    let name = names.get(text)
    if (name === undefined && names.size < MAX_NAMES) {
      name = "s" + createHash("sha1").update(text).digest("base64url").slice(0, 20)
      names.set(text, name)
    }
    return { name, text, values: values as Array<unknown> }
  }

  /** A connection within the bound; one that arrives after its caller gave up goes straight back. */
  const acquire = (callback: (error: Error | undefined, client: pg.PoolClient | undefined) => void) => {
    let waiting = true
    const askedAt = performance.now()
    const timer = bounds === undefined ? undefined : setTimeout(() => {
      waiting = false
      waited(performance.now() - askedAt)
      callback(new DatabaseFault("acquire", bounds.acquireMs), undefined)
    }, bounds.acquireMs)
    pool.connect((error, client, release) => {
      if (timer !== undefined) clearTimeout(timer)
      if (!waiting) {
        if (client !== undefined) release()
        return
      }
      waiting = false
      waited(performance.now() - askedAt)
      // whatever refused the connection (down, not accepting connections, gone), no request can be served
      if (error !== undefined && error !== null) return callback(new DatabaseFault("connect", 0, { cause: error }), undefined)
      callback(undefined, client)
    })
  }

  const queryMs = bounds?.queryMs

  const send: Send = (query) =>
    Effect.callback<pg.QueryResult, SqlError.SqlError>((resume) => {
      let abandoned = false
      acquire((error, client) => {
        if (client === undefined) return abandoned || resume(Effect.fail(failed(error!)))
        if (abandoned) return client.release()
        submit(client, query, queryMs, (error, result, unfit) => {
          client.release(unfit ? error : undefined)
          if (!abandoned) resume(error === undefined ? Effect.succeed(result!) : Effect.fail(failed(error)))
        })
      })
      return Effect.sync(() => {
        abandoned = true
      })
    })

  const reserve = Effect.acquireRelease(
    Effect.callback<Held, SqlError.SqlError>((resume) => {
      let abandoned = false
      acquire((error, client) => {
        if (client === undefined) return abandoned || resume(Effect.fail(failed(error!)))
        if (abandoned) return client.release()
        resume(Effect.succeed(new Held(client)))
      })
      return Effect.sync(() => {
        abandoned = true
      })
    }),
    (held) => Effect.sync(() => held.release())
  ).pipe(Effect.map((held): Send => (query) =>
    Effect.callback<pg.QueryResult, SqlError.SqlError>((resume) => {
      held.outstanding++
      submit(held.client, query, queryMs, (error, result, unfit) => {
        held.outstanding--
        if (unfit) held.unfit = error
        resume(error === undefined ? Effect.succeed(result!) : Effect.fail(failed(error)))
      })
    })
  ))

  return { sendable, send, reserve }
}

/** A reserved connection: removed on release when a statement is still out or it went unfit. */
class Held {
  outstanding = 0
  unfit: Error | undefined = undefined
  constructor(readonly client: pg.PoolClient) {}
  release() {
    this.client.release(this.unfit ?? (this.outstanding > 0 ? new DatabaseFault("query", 0) : undefined))
  }
}
