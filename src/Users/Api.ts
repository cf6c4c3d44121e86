import { HttpApiGroup, OpenApi } from "@effect/platform"

export class UsersApi extends HttpApiGroup.make("Users")
  .prefix("/v1")
  .annotate(OpenApi.Title, "Users") {}
