import type * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Statements } from "../Database.js"
import { notFound } from "../Contract/Errors.js"
import { detailJson } from "./Json.js"
import type { Audience } from "../Shapes/Song.js"
import { withSpan } from "../Spans.js"

/**
 * Every public row of a type as the statement its detail (or list item) is read with: `select`
 * gives the rows' JSON (`json`), `key` orders them. The detail readers are built from it, and the
 * snapshots (src/Snapshots/Writer.ts) read it whole, so both serve the same bytes.
 */
export interface PublicRows {
  readonly select: string
  readonly key: string
}

/**
 * A detail whose JSON Postgres built, or not_found when no row came back: a hidden row answers
 * exactly like an id that never existed (docs/api.md, Visibility). `what` names it: "Song 12".
 */
export const detailOrNotFound = (what: string) => <E, R>(json: Effect.Effect<Option.Option<string>, E, R>) =>
  Effect.flatMap(
    json,
    Option.match({
      onNone: () => Effect.fail(notFound(what)),
      onSome: (text) => Effect.succeed(detailJson(text))
    })
  )

/**
 * The JSON of one row by id, the hottest reads: `compose` places the id with the `sql` template
 * (`(id) => sql`... WHERE s.id = ${id}``), compiled once into a prepared statement
 * (src/Database/Statements.ts).
 */
export const jsonById = (
  statements: Statements["Service"],
  compose: (id: number) => Statement.Statement<{ readonly json: string }>
) => {
  const prepared = statements.prepare(compose)
  return (id: number) => Effect.map(statements.run(prepared, id), (rows) => Option.fromNullishOr(rows[0]?.json))
}

/**
 * A by-id detail read for both audiences (public, staff), as every detail repository method is:
 * `textOf(audience)` is the fixed statement up to where the id goes (`... WHERE s.id = `), each
 * prepared once; a database failure is a defect the error mapping answers (503); `span` names the
 * repository method. None: no row the audience may see.
 */
export const detailReader = (
  sql: SqlClient.SqlClient,
  statements: Statements["Service"],
  textOf: (audience: Audience) => string,
  span: string
) => {
  const byId = (audience: Audience) =>
    jsonById(statements, (id) => sql<{ readonly json: string }>`${sql.literal(textOf(audience))}${id}`)
  const read = { public: byId("public"), staff: byId("staff") } as const
  return (id: number, audience: Audience) => read[audience](id).pipe(withSpan(span))
}
