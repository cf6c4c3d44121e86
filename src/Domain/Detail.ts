import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { notFound } from "./Errors.js"
import { detailJson } from "./Json.js"

/**
 * A detail whose JSON Postgres built, or not_found when no row came back: a hidden row answers
 * exactly like an id that never existed (spec part 3). `what` names it: "Song 12".
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
 * The JSON of one row by id, from a fixed statement that ends where its id goes
 * (`... WHERE s.id = `). The text is made once, so the statement-name lookup of
 * src/Database.ts hashes it once, not on every request (a template compiles a new string).
 */
export const jsonById = (sql: SqlClient.SqlClient, textBeforeId: string) => {
  const text = `${textBeforeId}$1`
  return (id: number) =>
    Effect.map(sql.unsafe<{ readonly json: string }>(text, [id]), (rows) => Option.fromNullable(rows[0]?.json))
}
