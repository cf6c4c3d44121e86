import { HttpApiGroup, OpenApi } from "@effect/platform"

export class LabelsApi extends HttpApiGroup.make("Labels")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Labels") {}
