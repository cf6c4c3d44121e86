import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { echo } from "../Contract/Errors.js"
import { listJson } from "../Queries/Json.js"
import { detailOrNotFound, listOrNotFound } from "../Queries/NotFound.js"
import { GenresRepo } from "./Repo.js"

export const GenresLive = HttpApiBuilder.group(Api, "Genres", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* GenresRepo
    return handlers
      // Returned whole: meta says every row is on this one page.
      .handle("list", () =>
        Effect.map(repo.listGenres, ({ json, total }) =>
          listJson(json, { total, limit: total, offset: 0, next_cursor: "" })))
      .handle("detail", ({ params: { slug } }) =>
        repo.findGenre(slug).pipe(detailOrNotFound(`Genre ${echo(slug)}`)))
      .handle("songs", ({ params: { slug }, query: { sort, ...page } }) =>
        repo.listGenreSongs(slug, sort ?? "released", page).pipe(listOrNotFound(`Genre ${echo(slug)}`)))
  })).pipe(Layer.provide(GenresRepo.layer))
