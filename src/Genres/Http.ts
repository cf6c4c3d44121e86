import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const GenresLive = HttpApiBuilder.group(Api, "Genres", (handlers) => handlers)
