import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const UsersLive = HttpApiBuilder.group(Api, "Users", (handlers) => handlers)
