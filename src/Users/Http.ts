import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { echo, notFound } from "../Domain/Errors.js"
import { listJson } from "../Domain/Json.js"
import type { KeysetResult } from "../Domain/Keyset.js"
import { UsersRepo } from "./Repo.js"

const listOf = (page: KeysetResult) => listJson(page.itemsJson, page.meta)

/** A list owned by a member: not_found when no public member has the handle. */
const memberListOf = (username: string) => (page: KeysetResult) =>
  page.found ? Effect.succeed(listOf(page)) : Effect.fail(notFound(`User ${echo(username)}`))

export const UsersLive = HttpApiBuilder.group(Api, "Users", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* UsersRepo
    return handlers
      .handle("list", ({ urlParams: { cursor, limit, offset, ...query } }) =>
        Effect.map(repo.listUsers(query, { cursor, limit, offset }), listOf))
      .handle("contributions", ({ path: { username }, urlParams }) =>
        Effect.flatMap(repo.listUserContributions(username, urlParams), memberListOf(username)))
      .handle("loves", ({ path: { username }, urlParams }) =>
        Effect.flatMap(repo.listUserLoves(username, urlParams), memberListOf(username)))
  })).pipe(Layer.provide(UsersRepo.Default))
