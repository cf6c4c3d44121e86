import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AlbumsRepo } from "../Albums/Repo.js"
import { Api } from "../Api.js"
import { StaffAuthLive } from "../Auth/StaffAuth.js"
import { TokenVerifier } from "../Auth/TokenVerifier.js"
import { CuratedListsRepo } from "../CuratedLists/Repo.js"
import { detailJson, pageJson } from "../Queries/Json.js"
import { detailOrNotFound } from "../Queries/NotFound.js"
import { SongsRepo } from "../Songs/Repo.js"
import { StaffRepo } from "./Repo.js"

/** Staff see every state through the same repositories as the public, with audience "staff". */
export const StaffLive = HttpApiBuilder.group(Api, "Staff", (handlers) =>
  Effect.gen(function*() {
    const staff = yield* StaffRepo
    const songs = yield* SongsRepo
    const albums = yield* AlbumsRepo
    const lists = yield* CuratedListsRepo
    return handlers
      .handle("songs", ({ query: urlParams }) =>
        Effect.map(staff.listStaffSongs(urlParams.status ?? "all", urlParams.q, urlParams), pageJson))
      .handle("song", ({ params: path }) => songs.findSong(path.songId, "staff").pipe(detailOrNotFound("The song")))
      .handle("album", ({ params: path }) => albums.findAlbum(path.albumId, "staff").pipe(detailOrNotFound("The album")))
      .handle("curatedList", ({ params: path }) =>
        lists.findCuratedList(path.listId, "staff").pipe(detailOrNotFound("The curated list")))
      .handle("stats", () => Effect.map(staff.getStaffStats, detailJson))
  })
).pipe(
  Layer.provide([StaffRepo.layer, SongsRepo.layer, AlbumsRepo.layer, CuratedListsRepo.layer]),
  Layer.provide(StaffAuthLive),
  Layer.provide(TokenVerifier.layer)
)
