/**
 * Bounded waiting on PostgreSQL: a connection within `acquireMs`, an answer within `queryMs`,
 * or the request fails fast with a DatabaseFault instead of waiting on a frozen server. A
 * connection past its deadline is destroyed, never handed to the next request.
 */
import type * as SqlError from "@effect/sql/SqlError"
import type pg from "pg"

export type FaultKind = "acquire" | "query" | "connect"

/** The database gave no connection or no answer in time, or could not be connected to. */
export class DatabaseFault extends Error {
  readonly code = "DATABASE_FAULT"
  constructor(readonly kind: FaultKind, afterMs: number, options?: { readonly cause: unknown }) {
    super(
      kind === "acquire"
        ? `no database connection within ${afterMs} ms (acquire timeout)`
        : kind === "query"
        ? `no answer from the database within ${afterMs} ms (query timeout); the connection was destroyed`
        : "could not connect to the database",
      options
    )
    this.name = "DatabaseFault"
  }
}

/** Errors a lost connection raised (they carry no SQLSTATE); recognised by identity, never by text. */
const lostConnectionErrors = new WeakSet<object>()

/** SQLSTATEs of a database that is down, starting, out of connections, or that cancelled on a timeout. */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "57014"])
const UNAVAILABLE_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "DATABASE_FAULT"
])

const codeOf = (error: unknown) => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/**
 * A lost, hung, refusing or overloaded database ("try again later": 503), told by the cause's
 * SQLSTATE class (08: connection exception) or code, never by message text.
 */
export const isDatabaseUnavailable = (error: SqlError.SqlError): boolean => {
  const cause = error.cause
  if (cause instanceof DatabaseFault) return true
  if (typeof cause === "object" && cause !== null && lostConnectionErrors.has(cause)) return true
  const code = codeOf(cause) ?? ""
  return code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code)
}

type Callback = (error: Error | undefined, ...rest: Array<unknown>) => void

/** The client's socket: destroying it ends a query the server will never answer. */
const destroySocket = (client: pg.PoolClient) =>
  (client as unknown as { connection?: { stream?: { destroy: () => void } } }).connection?.stream?.destroy()

/** Clients whose socket a deadline destroyed, and how many queries each has sent and not had answered. */
interface ClientStates {
  readonly broken: WeakSet<pg.PoolClient>
  readonly unanswered: WeakMap<pg.PoolClient, number>
}

/** A client to remove rather than reuse: a query passed its deadline, or one is still out (its caller was interrupted). */
const isUnfit = (client: pg.PoolClient, states: ClientStates) =>
  states.broken.has(client) || (states.unanswered.get(client) ?? 0) > 0

/**
 * Gives every callback query of a new client a deadline. Past it the socket is destroyed, the
 * caller gets a DatabaseFault, and the client is marked so that its release removes it from the pool.
 */
const guardQueries = (client: pg.PoolClient, queryMs: number, states: ClientStates) => {
  // first in line: the error of a lost connection is marked before anyone else sees it
  client.prependListener("error", (error: unknown) => {
    if (typeof error === "object" && error !== null && codeOf(error) === undefined) lostConnectionErrors.add(error)
  })
  const original = client.query.bind(client) as (...args: Array<unknown>) => unknown
  const guarded = (...args: Array<unknown>): unknown => {
    const at = args.findLastIndex((arg) => typeof arg === "function")
    if (at < 0) return original(...args)
    const callback = args[at] as Callback
    let answered = false
    const settle = () => {
      answered = true
      states.unanswered.set(client, (states.unanswered.get(client) ?? 1) - 1)
    }
    states.unanswered.set(client, (states.unanswered.get(client) ?? 0) + 1)
    const timer = setTimeout(() => {
      settle()
      states.broken.add(client)
      destroySocket(client)
      callback(new DatabaseFault("query", queryMs))
    }, queryMs)
    args[at] = (error: Error | undefined, ...rest: Array<unknown>) => {
      if (answered) return
      settle()
      clearTimeout(timer)
      callback(error, ...rest)
    }
    try {
      return original(...args)
    } catch (error) {
      // refused before it was sent: no deadline to keep
      settle()
      clearTimeout(timer)
      throw error
    }
  }
  Object.assign(client, { query: guarded })
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, release: (error?: Error) => void) => void

const NOOP = () => undefined

/**
 * Bounds `pool.connect` (which `pool.query` and @effect/sql both use) to `acquireMs`, and every
 * query of every client to `queryMs`. A connection that arrives after its caller gave up goes
 * back to the pool; one whose query passed the deadline, or is still out, is removed when it is released.
 */
export interface WaitingBounds {
  readonly acquireMs: number
  readonly queryMs: number
}

export const boundWaiting = (pool: pg.Pool, bounds: WaitingBounds) => {
  const states: ClientStates = { broken: new WeakSet(), unanswered: new WeakMap() }
  pool.on("connect", (client) => guardQueries(client, bounds.queryMs, states))
  const connect = pool.connect.bind(pool) as (callback: ConnectCallback) => void
  const boundedConnect = (callback?: ConnectCallback): unknown => {
    if (callback === undefined) {
      return new Promise((resolve, reject) =>
        boundedConnect((error, client) => (error === undefined ? resolve(client) : reject(error)))
      )
    }
    let settled = false
    const timer = setTimeout(() => {
      settled = true
      callback(new DatabaseFault("acquire", bounds.acquireMs), undefined, NOOP)
    }, bounds.acquireMs)
    connect((error, client, release) => {
      clearTimeout(timer)
      if (settled) {
        if (client !== undefined) release()
        return
      }
      settled = true
      if (error !== undefined && error !== null) {
        const fault = codeOf(error) === undefined ? new DatabaseFault("connect", bounds.acquireMs, { cause: error }) : error
        // whatever refused the connection (down, not accepting connections, gone), no request can be served
        if (typeof fault === "object") lostConnectionErrors.add(fault)
        return callback(fault, undefined, NOOP)
      }
      const c = client!
      const boundedRelease = (releaseError?: Error) =>
        release(releaseError ?? (isUnfit(c, states) ? new DatabaseFault("query", bounds.queryMs) : undefined))
      c.release = boundedRelease
      callback(undefined, c, boundedRelease)
    })
    return undefined
  }
  Object.assign(pool, { connect: boundedConnect })
}
