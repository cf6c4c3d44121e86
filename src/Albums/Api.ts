import { HttpApiGroup, OpenApi } from "@effect/platform"

export class AlbumsApi extends HttpApiGroup.make("Albums")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Albums") {}
