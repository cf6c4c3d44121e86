import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { listJson } from "../Queries/Json.js"
import { ChangesRepo } from "./Repo.js"

export const DEFAULT_FEED_LIMIT = 100

export const ChangesLive = HttpApiBuilder.group(Api, "Changes", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ChangesRepo
    return handlers.handle("changes", ({ query: { since, limit = DEFAULT_FEED_LIMIT } }) =>
      Effect.map(repo.listChanges(since, limit), (page) =>
        listJson(page.itemsJson, { total: page.total, limit, offset: 0, next_cursor: page.nextCursor })))
  })
).pipe(Layer.provide(ChangesRepo.layer))
