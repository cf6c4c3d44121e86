import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const AlbumsLive = HttpApiBuilder.group(Api, "Albums", (handlers) => handlers)
