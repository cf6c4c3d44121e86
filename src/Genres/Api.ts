import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { Genre, GenreEntry } from "../Domain/Genre.js"
import { TextParam } from "../Domain/Params.js"
import { SongSummary } from "../Domain/Song.js"
import { SongListParams } from "../Labels/Api.js"

const bySlug = Schema.Struct({ slug: TextParam("slug").annotations({
  jsonSchema: { type: "string", minLength: 1, description: "The genre's slug, e.g. rock-kapak." }
}) })

export class GenresApi extends HttpApiGroup.make("Genres")
  .add(
    HttpApiEndpoint.get("list", "/genres")
      .addSuccess(ListEnvelope(GenreEntry, "GenreList"))
      .annotate(OpenApi.Summary, "Every genre, by title (returned whole, not paginated)")
  )
  .add(
    HttpApiEndpoint.get("detail", "/genres/:slug")
      .setPath(bySlug)
      .addSuccess(DetailEnvelope(Genre, "GenreResponse"))
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "One genre")
  )
  .add(
    HttpApiEndpoint.get("songs", "/genres/:slug/songs")
      .setPath(bySlug)
      .setUrlParams(SongListParams)
      .addSuccess(ListEnvelope(SongSummary, "GenreSongList"))
      .addError(BadRequestError)
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "A genre's public songs, newest first")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Genres") {}
