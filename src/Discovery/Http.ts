import { HttpApiBuilder } from "@effect/platform"
import { Api } from "../Api.js"

export const DiscoveryLive = HttpApiBuilder.group(Api, "Discovery", (handlers) => handlers)
