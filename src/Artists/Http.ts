import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Api } from "../Api.js"
import { idsAlone } from "../Domain/Batch.js"
import { notFound } from "../Domain/Errors.js"
import { detailJson, listJson } from "../Domain/Json.js"
import { pageMeta, resolvePage } from "../Domain/Pagination.js"
import { artistCursorKeys, ArtistsRepo, type JsonPage } from "./Repo.js"

const artistNotFound = (artistId: number) => notFound(`Artist ${artistId}`)

const pageResponse = (page: Parameters<typeof pageMeta>[0], scope: string, result: JsonPage) =>
  listJson(result.items, pageMeta(page, scope, result.total, result.served, result.lastKey))

export const ArtistsLive = HttpApiBuilder.group(Api, "Artists", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ArtistsRepo
    return handlers
      .handle("list", ({ urlParams: { ids, ...urlParams } }) =>
        Effect.gen(function*() {
          if (ids !== undefined) {
            yield* idsAlone(urlParams)
            const found = yield* repo.byIds(ids)
            return listJson(found.itemsJson, found.meta)
          }
          const sort = urlParams.sort ?? "name"
          // The cursor carries the whole list definition: sort and filter.
          const scope = `artists:${sort}:${urlParams.q ?? ""}`
          const page = yield* resolvePage(urlParams, scope, artistCursorKeys[sort])
          const result = yield* repo.list({ q: urlParams.q, sort, page })
          return pageResponse(page, scope, result)
        }))
      .handle("namesakeHints", ({ urlParams }) =>
        Effect.map(repo.namesakeHintsJson(urlParams.ids), ({ count, json }) =>
          listJson(json, { total: count, limit: urlParams.ids.length, offset: 0, next_cursor: "" })))
      .handle("detail", ({ path }) =>
        Effect.flatMap(
          repo.detailJson(path.artistId),
          Option.match({ onNone: () => Effect.fail(artistNotFound(path.artistId)), onSome: (json) => Effect.succeed(detailJson(json)) })
        ))
      .handle("songs", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const role = urlParams.role ?? "any"
          const scope = `artist-songs:${path.artistId}:${role}`
          const page = yield* resolvePage(urlParams, scope, artistCursorKeys.artistSongs)
          const result = yield* repo.songs(path.artistId, role, page)
          if (Option.isNone(result)) return yield* artistNotFound(path.artistId)
          return pageResponse(page, scope, result.value)
        }))
      .handle("albums", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const scope = `artist-albums:${path.artistId}`
          const page = yield* resolvePage(urlParams, scope, artistCursorKeys.artistAlbums)
          const result = yield* repo.albums(path.artistId, page)
          if (Option.isNone(result)) return yield* artistNotFound(path.artistId)
          return pageResponse(page, scope, result.value)
        }))
  })
).pipe(Layer.provide(ArtistsRepo.Default))
