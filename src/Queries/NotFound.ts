/**
 * The one way to answer not_found: a detail whose row is not there, or a list whose owner (a
 * label, a genre, a public member) is not there. A hidden row answers exactly like an id that
 * never existed (docs/api.md, Visibility). `what` names it: "Song 12", "User aishah".
 */
import * as Effect from "effect/Effect"
import { notFound } from "../Contract/Errors.js"
import { pageJson } from "./Json.js"
import type { KeysetResult } from "./Keyset.js"

export { detailOrNotFound } from "./Detail.js"

/** A list page whose statement checked its owner (KeysetOptions.guard): the list, or not_found. */
export const listOrNotFound = (what: string) => <E, R>(page: Effect.Effect<KeysetResult, E, R>) =>
  Effect.flatMap(page, (result) =>
    result.found ? Effect.succeed(pageJson(result)) : Effect.fail(notFound(what)))
