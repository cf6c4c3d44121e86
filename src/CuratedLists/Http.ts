import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { pageJson } from "../Domain/Json.js"
import { detailOrNotFound } from "../Domain/NotFound.js"
import { CuratedListsRepo } from "./Repo.js"

export const CuratedListsLive = HttpApiBuilder.group(Api, "CuratedLists", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* CuratedListsRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.map(repo.listCuratedLists(urlParams), pageJson))
      .handle("detail", ({ path }) =>
        repo.findCuratedList(path.listId, "public").pipe(detailOrNotFound(`Curated list ${path.listId}`)))
  })
).pipe(Layer.provide(CuratedListsRepo.Default))
