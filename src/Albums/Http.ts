import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { idsAlone } from "../Domain/Batch.js"
import { listJson } from "../Domain/Json.js"
import { detailOrNotFound } from "../Domain/NotFound.js"
import { AlbumsRepo } from "./Repo.js"

export const AlbumsLive = HttpApiBuilder.group(Api, "Albums", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* AlbumsRepo
    return handlers
      .handle("list", ({ urlParams: { cursor, ids, limit, offset, ...browse } }) =>
        Effect.map(
          ids === undefined
            ? repo.listAlbums(browse, { cursor, limit, offset })
            : Effect.zipRight(idsAlone({ cursor, limit, offset, ...browse }), repo.listAlbumsByIds(ids)),
          (page) => listJson(page.itemsJson, page.meta)
        ))
      .handle("detail", ({ path }) =>
        repo.findAlbum(path.albumId, "public").pipe(detailOrNotFound(`Album ${path.albumId}`)))
  })
).pipe(Layer.provide(AlbumsRepo.Default))
