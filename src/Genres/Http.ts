import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Api } from "../Api.js"
import { echo, notFound } from "../Domain/Errors.js"
import { detailJson, listJson } from "../Domain/Json.js"
import { GenresRepo } from "./Repo.js"

export const GenresLive = HttpApiBuilder.group(Api, "Genres", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* GenresRepo
    return handlers
      // Returned whole: meta says every row is on this one page.
      .handle("list", () =>
        Effect.map(repo.listGenres, ({ json, total }) =>
          listJson(json, { total, limit: total, offset: 0, next_cursor: "" })))
      .handle("detail", ({ path: { slug } }) =>
        Effect.flatMap(
          repo.findGenre(slug),
          Option.match({ onNone: () => Effect.fail(notFound(`Genre ${echo(slug)}`)), onSome: (json) => Effect.succeed(detailJson(json)) })
        ))
      .handle("songs", ({ path: { slug }, urlParams: { sort, ...page } }) =>
        Effect.flatMap(repo.listGenreSongs(slug, sort ?? "released", page), (result) =>
          result.found
            ? Effect.succeed(listJson(result.itemsJson, result.meta))
            : Effect.fail(notFound(`Genre ${echo(slug)}`))))
  })).pipe(Layer.provide(GenresRepo.Default))
