import { HttpApiGroup, OpenApi } from "@effect/platform"

export class DiscoveryApi extends HttpApiGroup.make("Discovery")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Discovery") {}
