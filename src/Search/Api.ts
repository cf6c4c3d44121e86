import { HttpApiGroup, OpenApi } from "@effect/platform"

export class SearchApi extends HttpApiGroup.make("Search")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Search") {}
