import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { AlbumDetail, AlbumPath } from "../Albums/Api.js"
import { StaffAuth } from "../Auth/StaffAuth.js"
import { CuratedList, ListPath } from "../CuratedLists/Api.js"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, PageParams } from "../Domain/Params.js"
import { SearchTextParam } from "../Domain/SearchText.js"
import {
  AlbumSongEntry,
  ListAlbumEntry,
  ListSongEntry,
  PublicationStatus,
  SongStatus,
  SongSummary
} from "../Domain/Song.js"
import { CatalogueStats } from "../Meta/Api.js"
import { SongDetail, SongPath } from "../Songs/Api.js"

const Instant = Schema.NullOr(Schema.String).annotations({ description: "RFC 3339 UTC, or null." })

/** Where a song stands, on every staff song. */
const songStateFields = {
  status: SongStatus,
  published_at: Instant.annotations({ description: "RFC 3339 UTC; null when never published (future dates: scheduled)." }),
  deleted_at: Instant
}

export const StaffSongSummary = Schema.Struct({ ...SongSummary.fields, ...songStateFields }).annotations({
  identifier: "StaffSongSummary"
})

export const StaffSongDetail = Schema.Struct({ ...SongDetail.fields, ...songStateFields }).annotations({
  identifier: "StaffSongDetail"
})

/** Album detail with every track, each marked with its status. */
export const StaffAlbumDetail = Schema.Struct({
  ...AlbumDetail.fields,
  songs: Schema.Array(Schema.Struct({ ...AlbumSongEntry.fields, status: SongStatus })),
  status: PublicationStatus
}).annotations({ identifier: "StaffAlbumDetail" })

/** Curated list with every entry, each marked with its status. */
export const StaffCuratedList = Schema.Struct({
  ...CuratedList.fields,
  songs: Schema.Array(Schema.Struct({ ...ListSongEntry.fields, status: SongStatus })),
  albums: Schema.Array(Schema.Struct({ ...ListAlbumEntry.fields, status: PublicationStatus })),
  status: PublicationStatus
}).annotations({ identifier: "StaffCuratedList" })

export const StaffStats = Schema.Struct({
  ...CatalogueStats.fields,
  unpublished_songs: Schema.Int.annotations({ description: "Songs not yet published (none or a future date), not deleted." }),
  deleted_songs: Schema.Int
}).annotations({ identifier: "StaffStats" })

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
