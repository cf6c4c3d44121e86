import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { Genre, GenreEntry } from "../Contract/Genre.js"
import { TextParam } from "../Contract/Params.js"
import { SongSummary } from "../Contract/Song.js"
import { SongListParams } from "../Labels/Api.js"
import { detailEndpoint, listEndpoint, ownedListEndpoint } from "../Contract/Endpoints.js"

const bySlug = Schema.Struct({ slug: TextParam("slug", { type: "string", minLength: 1, description: "The genre's slug, e.g. rock-kapak." }) })

export class GenresApi extends HttpApiGroup.make("Genres")
  .add(
    listEndpoint("list", "/genres", Schema.Struct({}), GenreEntry, "GenreList", "Every genre, by title (returned whole, not paginated)")
  )
  .add(
    detailEndpoint("detail", "/genres/:slug", bySlug, Genre, "GenreResponse", "One genre")
  )
  .add(
    ownedListEndpoint("songs", "/genres/:slug/songs", { path: bySlug, query: SongListParams }, SongSummary, "GenreSongList", "A genre's public songs, newest first")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Genres") {}
