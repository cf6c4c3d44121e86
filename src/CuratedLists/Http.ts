import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { pageJson } from "../Queries/Json.js"
import { detailOrNotFound } from "../Queries/NotFound.js"
import { CuratedListsRepo } from "./Repo.js"

export const CuratedListsLive = HttpApiBuilder.group(Api, "CuratedLists", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* CuratedListsRepo
    return handlers
      .handle("list", ({ query: urlParams }) =>
        Effect.map(repo.listCuratedLists(urlParams), pageJson))
      .handle("detail", ({ params: path }) =>
        repo.findCuratedList(path.listId, "public").pipe(detailOrNotFound(`Curated list ${path.listId}`)))
  })
).pipe(Layer.provide(CuratedListsRepo.layer))
