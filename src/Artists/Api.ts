import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { ArtistDetail, ArtistSummary, NamesakeHint } from "../Contract/Artist.js"
import { detailEndpoint, listEndpoint, ownedListEndpoint } from "../Contract/Endpoints.js"
import { ChoiceParam, CommaSetParam, IdListParam, IdParam, MAX_BATCH_IDS, MAX_INT4, PageParams } from "../Contract/Params.js"
import { SearchTextParam } from "../Contract/SearchText.js"
import { ListAlbumEntry, SongSummary } from "../Contract/Song.js"

export const MAX_HINT_IDS = 100

/** `ids=1,2,3`: 1 to 100 ids, each as strict as an id in a path; duplicates count once. */
export const ArtistIdsParam = CommaSetParam({
  pattern: /^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9})*$/,
  max: MAX_HINT_IDS,
  value: Number,
  fits: (id) => id <= MAX_INT4,
  message: `ids must be 1 to ${MAX_HINT_IDS} comma-separated artist ids, each a whole number from 1 to ${MAX_INT4}.`,
  jsonSchema: {
    type: "array",
    items: { type: "integer", minimum: 1, maximum: MAX_INT4 },
    minItems: 1,
    maxItems: MAX_HINT_IDS,
    description: `Artist ids, 1 to ${MAX_HINT_IDS} of them, comma-separated (ids=12,40); repeated ids count once.`
  },
  sample: { kind: "integer", min: 1, max: MAX_INT4 }
})

export const ArtistSort = ChoiceParam("sort", "name", "songs")
export type ArtistSort = typeof ArtistSort.Type
export const ArtistSongRole = ChoiceParam("role", "performer", "writer", "any")
export type ArtistSongRole = typeof ArtistSongRole.Type

const artistPath = Schema.Struct({ artistId: IdParam("artistId") })

export class ArtistsApi extends HttpApiGroup.make("Artists")
  .add(
    listEndpoint(
      "list",
      "/artists",
      Schema.Struct({
        q: Schema.optional(SearchTextParam),
        sort: Schema.optional(ArtistSort),
        ids: Schema.optional(IdListParam(MAX_BATCH_IDS)),
        ...PageParams
      }),
      ArtistSummary,
      "ArtistList",
      "Visible artists, A-Z (sort=name, default) or most public songs first (sort=songs)"
    ).annotate(
      OpenApi.Description,
      "`q` keeps artists whose name, with or without its honorific, contains the text (case, " +
        "diacritics, apostrophes and hyphens do not matter)."
    )
  )
  // Declared before /artists/{artistId} so that the static path wins.
  .add(
    listEndpoint("namesakeHints", "/artists/namesake-hints", Schema.Struct({ ids: ArtistIdsParam }), NamesakeHint, "NamesakeHintList", "Hints that tell apart artists whose names collide")
      .annotate(
        OpenApi.Description,
        "A row for each asked id whose name equals another visible artist's name after folding case, " +
          "diacritics, spaces and punctuation; in the order asked. Not paginated."
      )
  )
  .add(
    detailEndpoint("detail", "/artists/:artistId", artistPath, ArtistDetail, "ArtistDetailResponse", "One visible artist with roles, group members and memberships")
  )
  .add(
    ownedListEndpoint("songs", "/artists/:artistId/songs", { path: artistPath, query: Schema.Struct({ role: Schema.optional(ArtistSongRole), ...PageParams }) }, SongSummary, "ArtistSongList", "An artist's public songs, newest first; role=performer|writer|any (default any)")
  )
  .add(
    ownedListEndpoint("albums", "/artists/:artistId/albums", { path: artistPath, query: Schema.Struct(PageParams) }, ListAlbumEntry, "ArtistAlbumList", "An artist's public albums, newest first")
      .annotate(
        OpenApi.Description,
        "Albums naming the artist, and albums without named artists on which the artist performs a public song."
      )
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Artists") {}
