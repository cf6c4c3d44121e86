import { HttpApiGroup, OpenApi } from "@effect/platform"

export class ArtistsApi extends HttpApiGroup.make("Artists")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Artists") {}
