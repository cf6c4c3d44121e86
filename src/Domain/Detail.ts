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
