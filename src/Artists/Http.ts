import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Api } from "../Api.js"
import { idsAlone } from "../Domain/Batch.js"
import { notFound } from "../Domain/Errors.js"
import { detailJson, listJson } from "../Domain/Json.js"
import type { KeysetResult } from "../Domain/Keyset.js"
import { ArtistsRepo } from "./Repo.js"

const artistNotFound = (artistId: number) => notFound(`Artist ${artistId}`)

/** A page of one artist's list, or not_found when the artist is not visible. */
const artistPage = (artistId: number) => (result: KeysetResult) =>
  result.found ? Effect.succeed(listJson(result.itemsJson, result.meta)) : Effect.fail(artistNotFound(artistId))

export const ArtistsLive = HttpApiBuilder.group(Api, "Artists", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ArtistsRepo
    return handlers
      .handle("list", ({ urlParams: { ids, ...urlParams } }) =>
        Effect.gen(function*() {
          if (ids !== undefined) {
            yield* idsAlone(urlParams)
            const found = yield* repo.listArtistsByIds(ids)
            return listJson(found.itemsJson, found.meta)
          }
          const { q, sort = "name", ...page } = urlParams
          const listed = yield* repo.listArtists({ q, sort, page })
          return listJson(listed.itemsJson, listed.meta)
        }))
      .handle("namesakeHints", ({ urlParams }) =>
        Effect.map(repo.hintNamesakes(urlParams.ids), ({ count, json }) =>
          listJson(json, { total: count, limit: urlParams.ids.length, offset: 0, next_cursor: "" })))
      .handle("detail", ({ path }) =>
        Effect.flatMap(
          repo.findArtist(path.artistId),
          Option.match({ onNone: () => Effect.fail(artistNotFound(path.artistId)), onSome: (json) => Effect.succeed(detailJson(json)) })
        ))
      .handle("songs", ({ path, urlParams: { role = "any", ...page } }) =>
        Effect.flatMap(repo.listArtistSongs(path.artistId, role, page), artistPage(path.artistId)))
      .handle("albums", ({ path, urlParams }) =>
        Effect.flatMap(repo.listArtistAlbums(path.artistId, urlParams), artistPage(path.artistId)))
  })
).pipe(Layer.provide(ArtistsRepo.Default))
