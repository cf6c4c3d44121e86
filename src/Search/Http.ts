import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const SearchLive = HttpApiBuilder.group(Api, "Search", (handlers) => handlers)
