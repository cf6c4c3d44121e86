import { HttpApiGroup, OpenApi } from "@effect/platform"

export class SongsApi extends HttpApiGroup.make("Songs")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Songs") {}
