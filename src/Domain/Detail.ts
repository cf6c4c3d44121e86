import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { PoolQuery } from "../Database.js"
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
 * The JSON of one row by id, from a fixed statement that ends where its id goes
 * (`... WHERE s.id = `), through PoolQuery (src/Database.ts): the detail reads are the hottest
 * statements. The text is made once, so the statement-name lookup hashes it once.
 */
export const jsonById = (query: PoolQuery["Type"], textBeforeId: string) => {
  const text = `${textBeforeId}$1`
  return (id: number) => Effect.map(query<{ readonly json: string }>(text, [id]), (rows) => Option.fromNullable(rows[0]?.json))
}
