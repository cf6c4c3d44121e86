/**
 * Every SqlError the service makes, with its reason told by codes only: the SQLSTATE of
 * PostgreSQL's own errors, the Node code of a socket's, and DATABASE_FAULT for what the statement
 * runner (src/Database/Runner.ts) saw itself. Never by message text. The reasons of a database
 * that is away ("try again later": 503) are named here once.
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

export const codeOf = (error: unknown) => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/** A lost, refused or overloaded database: what no statement of ours can be served by. */
const CONNECTION_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"])
const CONNECTION_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH"
])

type ReasonFields = { readonly cause: unknown; readonly message?: string }

/**
 * The one classifier: a failure's SqlError reason, by its code. SQLSTATE class 08, 57P01-57P03
 * (shut down, starting), 53300 (out of connections), a socket's code, and the runner's connect,
 * lost and acquire faults are a ConnectionError; 57014 and the runner's query deadline a
 * StatementTimeoutError; the rest as @effect/sql-pg classifies SQLSTATEs, UnknownError last.
 * A hot standby's recovery conflicts (replay needed a read's lock, snapshot or buffer) are the
 * only way a read-only service meets 40001 or 40P01.
 */
const reasonOf = (fields: ReasonFields): SqlError.SqlErrorReason => {
  const cause = fields.cause
  const code = codeOf(cause)
  if (code === undefined) return new SqlError.UnknownError(fields)
  if (code === "DATABASE_FAULT") {
    const kind = (cause as { kind?: unknown }).kind
    return kind === "query" ? new SqlError.StatementTimeoutError(fields) : new SqlError.ConnectionError(fields)
  }
  if (code.startsWith("08") || CONNECTION_SQLSTATES.has(code) || CONNECTION_NODE_CODES.has(code)) {
    return new SqlError.ConnectionError(fields)
  }
  if (code === "57014") return new SqlError.StatementTimeoutError(fields)
  if (code === "40001") return new SqlError.SerializationError(fields)
  if (code === "40P01") return new SqlError.DeadlockError(fields)
  if (code === "55P03") return new SqlError.LockTimeoutError(fields)
  if (code.startsWith("28")) return new SqlError.AuthenticationError(fields)
  if (code === "42501") return new SqlError.AuthorizationError(fields)
  if (code.startsWith("42")) return new SqlError.SqlSyntaxError(fields)
  if (code === "23505") {
    const constraint = (cause as { constraint?: unknown }).constraint
    return new SqlError.UniqueViolation({ ...fields, constraint: typeof constraint === "string" && constraint.trim() !== "" ? constraint.trim() : "unknown" })
  }
  if (code.startsWith("23")) return new SqlError.ConstraintError(fields)
  return new SqlError.UnknownError(fields)
}

/** A SqlError of ours with its reason: what failed (`cause`), and what to tell an operator. */
export const sqlError = (cause: unknown, message?: string) =>
  new SqlError.SqlError({ reason: reasonOf(message === undefined ? { cause } : { cause, message }) })

/** The error under a SqlError: the driver's, the socket's or the runner's. */
export const causeOf = (error: SqlError.SqlError): unknown => error.reason.cause

/**
 * The reasons that mean "the database is away, try again shortly" (503): every reason Effect marks
 * retryable. Anything else is a bug of ours (500).
 */
export const UNAVAILABLE_REASONS = [
  "ConnectionError",
  "StatementTimeoutError",
  "SerializationError",
  "DeadlockError",
  "LockTimeoutError"
] as const satisfies ReadonlyArray<SqlError.SqlErrorReason["_tag"]>

const unavailable: ReadonlySet<string> = new Set(UNAVAILABLE_REASONS)

/** A lost, hung, refusing or overloaded database, by the reason the classifier gave. */
export const isDatabaseUnavailable = (error: SqlError.SqlError): boolean => unavailable.has(error.reason._tag)
