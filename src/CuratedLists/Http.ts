import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const CuratedListsLive = HttpApiBuilder.group(Api, "CuratedLists", (handlers) => handlers)
