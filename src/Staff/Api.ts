import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { AlbumPath } from "../Albums/Api.js"
import { StaffAuth } from "../Contract/StaffAuth.js"
import { ListPath } from "../CuratedLists/Api.js"
import { StaffAlbumDetail } from "../Contract/Album.js"
import { StaffCuratedList } from "../Contract/CuratedList.js"
import { ChoiceParam, PageParams } from "../Contract/Params.js"
import { SearchTextParam } from "../Contract/SearchText.js"
import { StaffSongSummary } from "../Contract/Song.js"
import { StaffSongDetail } from "../Contract/SongDetail.js"
import { StaffStats } from "../Contract/Stats.js"
import { SongPath } from "../Songs/Api.js"
import { detailEndpoint, listEndpoint, resourceEndpoint } from "../Contract/Endpoints.js"

export const StaffSongFilter = ChoiceParam("status", "published", "unpublished", "deleted", "all")

export const StaffSongParams = Schema.Struct({
  status: Schema.optional(StaffSongFilter),
  q: Schema.optional(SearchTextParam),
  ...PageParams
})

/**
 * /v1/admin: staff bearer tokens only, every state of a song, album or list, each marked
 * with its status. Never cached, outside the rate limit. Still no email, role or ban state.
 */
export class StaffApi extends HttpApiGroup.make("Staff")
  .add(
    listEndpoint("songs", "/admin/songs", StaffSongParams, StaffSongSummary, "StaffSongList", "Songs in any state, newest first; filter by status (default all) and title")
  )
  .add(
    detailEndpoint("song", "/admin/songs/:songId", SongPath, StaffSongDetail, "StaffSongDetailResponse", "A song's full detail in any state, with its status")
  )
  .add(
    detailEndpoint("album", "/admin/albums/:albumId", AlbumPath, StaffAlbumDetail, "StaffAlbumDetailResponse", "An album in any state, hidden tracks included and marked")
  )
  .add(
    detailEndpoint("curatedList", "/admin/curated-lists/:listId", ListPath, StaffCuratedList, "StaffCuratedListResponse", "A curated list in any state, hidden entries included and marked")
  )
  .add(
    resourceEndpoint("stats", "/admin/stats", StaffStats, "StaffStatsResponse", "Catalogue statistics plus unpublished and deleted song counts")
  )
  .middleware(StaffAuth)
  .prefix("/v1")
  .annotate(OpenApi.Title, "Staff")
  .annotate(OpenApi.Description, "Bearer token of a staff member. Responses are never cached.") {}
