import { HttpApiGroup, OpenApi } from "@effect/platform"

export class StaffApi extends HttpApiGroup.make("Staff")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Staff") {}
