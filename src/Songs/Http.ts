import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { browseOrLookup } from "../Queries/Batch.js"
import { detailOrNotFound } from "../Queries/NotFound.js"
import { SongsRepo } from "./Repo.js"

export const SongsLive = HttpApiBuilder.group(Api, "Songs", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SongsRepo
    return handlers
      .handle("list", ({ query: urlParams }) =>
        browseOrLookup(urlParams, ({ cursor, limit, offset, ...browse }) => repo.listSongs(browse, { cursor, limit, offset }), {
          ids: repo.listSongsByIds,
          ...repo.listSongsByExternalIds
        }))
      .handle("detail", ({ params: path }) =>
        repo.findSong(path.songId, "public").pipe(detailOrNotFound(`Song ${path.songId}`)))
      .handle("similar", ({ params: path }) =>
        repo.findSimilarSongs(path.songId).pipe(detailOrNotFound(`Song ${path.songId}`)))
      .handle("contributors", ({ params: path }) =>
        repo.findSongContributors(path.songId, "public").pipe(detailOrNotFound(`Song ${path.songId}`)))
  })
).pipe(Layer.provide(SongsRepo.layer))
