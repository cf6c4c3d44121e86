import { HttpApiGroup, OpenApi } from "@effect/platform"

export class CuratedListsApi extends HttpApiGroup.make("CuratedLists")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Curated Lists") {}
