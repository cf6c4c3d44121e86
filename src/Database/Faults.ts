/**
 * A database that is away ("try again later": 503), told by codes only: the SQLSTATE of
 * PostgreSQL's own errors, the Node code of a socket's, and DATABASE_FAULT for what the statement
 * runner (src/Database/Runner.ts) saw itself. Never by message text.
 */
import * as SqlError from "effect/sql/SqlError"

export type FaultKind = "acquire" | "query" | "connect" | "lost"

/**
 * No connection in time, no answer in time, no connection to be had, or the connection lost
 * under a statement (pg's own error for that has no code: it is the `cause`).
 */
export class DatabaseFault extends Error {
  readonly code = "DATABASE_FAULT"
  constructor(readonly kind: FaultKind, afterMs: number, options?: { readonly cause: unknown }) {
    super(
      kind === "acquire"
        ? `no database connection within ${afterMs} ms (acquire timeout)`
        : kind === "query"
        ? `no answer from the database within ${afterMs} ms (query timeout); the connection was destroyed`
        : kind === "connect"
        ? `could not connect to the database (${messageOf(options?.cause)})`
        : "the connection to the database was lost under a statement",
      options
    )
    this.name = "DatabaseFault"
  }
}

const messageOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

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

export const codeOf = (error: unknown) => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/** A SqlError of ours: what failed (`cause`), and what to tell an operator. */
export const sqlError = (cause: unknown, message?: string) =>
  new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause, ...(message === undefined ? {} : { message }) }) })

/** The error under a SqlError: the driver's, the socket's or the runner's. */
export const causeOf = (error: SqlError.SqlError): unknown => error.reason.cause

/** A lost, hung, refusing or overloaded database: SQLSTATE class 08 (connection exception), the codes above. */
export const isDatabaseUnavailable = (error: SqlError.SqlError): boolean => {
  const code = codeOf(causeOf(error)) ?? ""
  return code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code)
}
