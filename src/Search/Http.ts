import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { JSON_CONTENT_TYPE } from "../Queries/Json.js"
import { DEFAULT_SEARCH_LIMIT, SEARCH_TYPES } from "./Api.js"
import { SearchRepo } from "./Repo.js"

export const SearchLive = HttpApiBuilder.group(Api, "Search", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SearchRepo
    return handlers.handle("search", ({ query: urlParams }) =>
      Effect.gen(function*() {
        const types = urlParams.types ?? SEARCH_TYPES
        const sections = yield* repo.search({
          q: urlParams.q,
          limit: urlParams.limit ?? DEFAULT_SEARCH_LIMIT,
          types
        })
        // Postgres built each section; they are joined in the fixed order of SEARCH_TYPES.
        const body = SEARCH_TYPES.flatMap((type) => {
          const json = sections.get(type)
          return json === null || json === undefined ? [] : [`"${type}":${json}`]
        }).join(",")
        return HttpServerResponse.text(`{"data":{${body}}}`, { contentType: JSON_CONTENT_TYPE })
      }))
  })
).pipe(Layer.provide(SearchRepo.layer))
