import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { AlbumPath } from "../Albums/Api.js"
import { StaffAuth } from "../Auth/StaffAuth.js"
import { ListPath } from "../CuratedLists/Api.js"
import { StaffAlbumDetail } from "../Domain/Album.js"
import { StaffCuratedList } from "../Domain/CuratedList.js"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, PageParams } from "../Domain/Params.js"
import { SearchTextParam } from "../Domain/SearchText.js"
import { StaffSongSummary } from "../Domain/Song.js"
import { StaffSongDetail } from "../Domain/SongDetail.js"
import { StaffStats } from "../Domain/Stats.js"
import { SongPath } from "../Songs/Api.js"

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
    HttpApiEndpoint.get("songs", "/admin/songs")
      .setUrlParams(StaffSongParams)
      .addSuccess(ListEnvelope(StaffSongSummary, "StaffSongList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "Songs in any state, newest first; filter by status (default all) and title")
  )
  .add(
    HttpApiEndpoint.get("song", "/admin/songs/:songId")
      .setPath(SongPath)
      .addSuccess(DetailEnvelope(StaffSongDetail, "StaffSongDetailResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "A song's full detail in any state, with its status")
  )
  .add(
    HttpApiEndpoint.get("album", "/admin/albums/:albumId")
      .setPath(AlbumPath)
      .addSuccess(DetailEnvelope(StaffAlbumDetail, "StaffAlbumDetailResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "An album in any state, hidden tracks included and marked")
  )
  .add(
    HttpApiEndpoint.get("curatedList", "/admin/curated-lists/:listId")
      .setPath(ListPath)
      .addSuccess(DetailEnvelope(StaffCuratedList, "StaffCuratedListResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "A curated list in any state, hidden entries included and marked")
  )
  .add(
    HttpApiEndpoint.get("stats", "/admin/stats")
      .addSuccess(DetailEnvelope(StaffStats, "StaffStatsResponse"))
      .annotate(OpenApi.Summary, "Catalogue statistics plus unpublished and deleted song counts")
  )
  .middleware(StaffAuth)
  .prefix("/v1")
  .annotate(OpenApi.Title, "Staff")
  .annotate(OpenApi.Description, "Bearer token of a staff member. Responses are never cached.") {}
