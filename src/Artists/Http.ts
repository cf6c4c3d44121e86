import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { browseOrLookup } from "../Queries/Batch.js"
import { listJson } from "../Queries/Json.js"
import { detailOrNotFound, listOrNotFound } from "../Queries/NotFound.js"
import { ArtistsRepo } from "./Repo.js"

export const ArtistsLive = HttpApiBuilder.group(Api, "Artists", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ArtistsRepo
    return handlers
      .handle("list", ({ query: urlParams }) =>
        browseOrLookup(urlParams, ({ q, sort = "name", ...page }) => repo.listArtists({ q, sort, page }), { ids: repo.listArtistsByIds }))
      .handle("namesakeHints", ({ query: urlParams }) =>
        Effect.map(repo.hintNamesakes(urlParams.ids), ({ count, json }) =>
          listJson(json, { total: count, limit: urlParams.ids.length, offset: 0, next_cursor: "" })))
      .handle("detail", ({ params: path }) => repo.findArtist(path.artistId).pipe(detailOrNotFound(`Artist ${path.artistId}`)))
      .handle("songs", ({ params: path, query: { role = "any", ...page } }) =>
        repo.listArtistSongs(path.artistId, role, page).pipe(listOrNotFound(`Artist ${path.artistId}`)))
      .handle("albums", ({ params: path, query: urlParams }) =>
        repo.listArtistAlbums(path.artistId, urlParams).pipe(listOrNotFound(`Artist ${path.artistId}`)))
  })
).pipe(Layer.provide(ArtistsRepo.layer))
