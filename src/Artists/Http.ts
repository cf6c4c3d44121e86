import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const ArtistsLive = HttpApiBuilder.group(Api, "Artists", (handlers) => handlers)
