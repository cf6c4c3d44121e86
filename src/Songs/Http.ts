import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { Api } from "../Api.js"
import { notFound } from "../Domain/Errors.js"
import { detailJson, listJson } from "../Domain/Json.js"
import { SongsRepo } from "./Repo.js"

/** A detail built by Postgres, or not_found exactly as for an id that never existed (spec part 3). */
export const detailOrNotFound = (what: string) => <E, R>(json: Effect.Effect<Option.Option<string>, E, R>) =>
  Effect.flatMap(json, Option.match({ onNone: () => Effect.fail(notFound(what)), onSome: (text) => Effect.succeed(detailJson(text)) }))

export const SongsLive = HttpApiBuilder.group(Api, "Songs", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SongsRepo
    return handlers
      .handle("list", ({ urlParams: { cursor, limit, offset, ...browse } }) =>
        Effect.map(repo.browseSongs(browse, { cursor, limit, offset }), (page) => listJson(page.itemsJson, page.meta)))
      .handle("detail", ({ path }) =>
        repo.songDetailJson(path.songId, "public").pipe(detailOrNotFound(`Song ${path.songId}`)))
      .handle("similar", ({ path }) =>
        repo.similarSongsJson(path.songId).pipe(detailOrNotFound(`Song ${path.songId}`)))
      .handle("contributors", ({ path }) =>
        repo.songContributorsJson(path.songId, "public").pipe(detailOrNotFound(`Song ${path.songId}`)))
  })
).pipe(Layer.provide(SongsRepo.Default))
