import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Api } from "../Api.js"
import { notFound } from "../Domain/Errors.js"
import { detailJson, listJson } from "../Domain/Json.js"
import { LabelsRepo } from "./Repo.js"

export const LabelsLive = HttpApiBuilder.group(Api, "Labels", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* LabelsRepo
    return handlers
      .handle("list", ({ urlParams: { cursor, limit, offset, ...query } }) =>
        Effect.map(repo.listLabels(query, { cursor, limit, offset }), (page) => listJson(page.itemsJson, page.meta)))
      .handle("detail", ({ path: { labelId } }) =>
        Effect.flatMap(
          repo.findLabel(labelId),
          Option.match({ onNone: () => Effect.fail(notFound(`Label ${labelId}`)), onSome: (json) => Effect.succeed(detailJson(json)) })
        ))
      .handle("songs", ({ path: { labelId }, urlParams: { sort, ...page } }) =>
        Effect.flatMap(repo.listLabelSongs(labelId, sort ?? "released", page), (result) =>
          result.found
            ? Effect.succeed(listJson(result.itemsJson, result.meta))
            : Effect.fail(notFound(`Label ${labelId}`))))
  })).pipe(Layer.provide(LabelsRepo.Default))
