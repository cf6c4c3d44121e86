import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { echo } from "../Contract/Errors.js"
import { pageJson } from "../Queries/Json.js"
import { listOrNotFound } from "../Queries/NotFound.js"
import { UsersRepo } from "./Repo.js"

/** A list owned by a member: not_found when no public member has the handle. */
const memberList = (username: string) => listOrNotFound(`User ${echo(username)}`)

export const UsersLive = HttpApiBuilder.group(Api, "Users", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* UsersRepo
    return handlers
      .handle("list", ({ query: { cursor, limit, offset, ...query } }) =>
        Effect.map(repo.listUsers(query, { cursor, limit, offset }), pageJson))
      .handle("contributions", ({ params: { username }, query: urlParams }) =>
        repo.listUserContributions(username, urlParams).pipe(memberList(username)))
      .handle("loves", ({ params: { username }, query: urlParams }) =>
        repo.listUserLoves(username, urlParams).pipe(memberList(username)))
  })).pipe(Layer.provide(UsersRepo.layer))
