import { HttpApiGroup, OpenApi } from "@effect/platform"

export class GenresApi extends HttpApiGroup.make("Genres")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Genres") {}
