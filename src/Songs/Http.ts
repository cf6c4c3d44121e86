import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const SongsLive = HttpApiBuilder.group(Api, "Songs", (handlers) => handlers)
