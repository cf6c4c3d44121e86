import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { pageJson } from "../Queries/Json.js"
import { detailOrNotFound, listOrNotFound } from "../Queries/NotFound.js"
import { LabelsRepo } from "./Repo.js"

export const LabelsLive = HttpApiBuilder.group(Api, "Labels", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* LabelsRepo
    return handlers
      .handle("list", ({ query: { cursor, limit, offset, ...query } }) =>
        Effect.map(repo.listLabels(query, { cursor, limit, offset }), pageJson))
      .handle("detail", ({ params: { labelId } }) =>
        repo.findLabel(labelId).pipe(detailOrNotFound(`Label ${labelId}`)))
      .handle("songs", ({ params: { labelId }, query: { sort, ...page } }) =>
        repo.listLabelSongs(labelId, sort ?? "released", page).pipe(listOrNotFound(`Label ${labelId}`)))
  })).pipe(Layer.provide(LabelsRepo.layer))
