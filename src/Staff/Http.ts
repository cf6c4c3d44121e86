import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AlbumsRepo } from "../Albums/Repo.js"
import { Api } from "../Api.js"
import { StaffAuthLive } from "../Auth/StaffAuth.js"
import { TokenVerifier } from "../Auth/TokenVerifier.js"
import { CuratedListsRepo } from "../CuratedLists/Repo.js"
import { notFound } from "../Domain/Errors.js"
import { detailJson, listJson } from "../Domain/Json.js"
import { SongsRepo } from "../Songs/Repo.js"
import { StaffRepo } from "./Repo.js"

/** Staff see every state through the same repositories as the public, with audience "staff". */
export const StaffLive = HttpApiBuilder.group(Api, "Staff", (handlers) =>
  Effect.gen(function*() {
    const staff = yield* StaffRepo
    const songs = yield* SongsRepo
    const albums = yield* AlbumsRepo
    const lists = yield* CuratedListsRepo
    const detail = (what: string) => Option.match({ onNone: () => Effect.fail(notFound(what)), onSome: (json: string) => Effect.succeed(detailJson(json)) })
    return handlers
      .handle("songs", ({ urlParams }) =>
        Effect.map(
          staff.songs(urlParams.status ?? "all", urlParams.q, urlParams),
          (page) => listJson(page.itemsJson, page.meta)
        ))
      .handle("song", ({ path }) => Effect.flatMap(songs.songDetailJson(path.songId, "staff"), detail("The song")))
      .handle("album", ({ path }) => Effect.flatMap(albums.albumDetailJson(path.albumId, "staff"), detail("The album")))
      .handle("curatedList", ({ path }) =>
        Effect.flatMap(lists.curatedListJson(path.listId, "staff"), detail("The curated list")))
      .handle("stats", () => Effect.map(staff.statsJson, detailJson))
  })
).pipe(
  Layer.provide([StaffRepo.Default, SongsRepo.Default, AlbumsRepo.Default, CuratedListsRepo.Default]),
  Layer.provide(StaffAuthLive),
  Layer.provide(TokenVerifier.layer)
)
