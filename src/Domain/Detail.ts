import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Statements } from "../Database.js"
import { notFound } from "./Errors.js"
import { detailJson } from "./Json.js"

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
  statements: Statements["Type"],
  compose: (id: number) => Statement.Statement<{ readonly json: string }>
) => {
  const prepared = statements.prepare(compose)
  return (id: number) => Effect.map(statements.run(prepared, id), (rows) => Option.fromNullable(rows[0]?.json))
}
