import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { browseOrLookup } from "../Queries/Batch.js"
import { detailOrNotFound } from "../Queries/NotFound.js"
import { AlbumsRepo } from "./Repo.js"

export const AlbumsLive = HttpApiBuilder.group(Api, "Albums", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* AlbumsRepo
    return handlers
      .handle("list", ({ query: urlParams }) =>
        browseOrLookup(urlParams, ({ cursor, limit, offset, ...browse }) => repo.listAlbums(browse, { cursor, limit, offset }), { ids: repo.listAlbumsByIds }))
      .handle("detail", ({ params: path }) =>
        repo.findAlbum(path.albumId, "public").pipe(detailOrNotFound(`Album ${path.albumId}`)))
  })
).pipe(Layer.provide(AlbumsRepo.layer))
