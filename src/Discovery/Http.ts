import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { detailJson } from "../Queries/Json.js"
import { DiscoveryRepo } from "./Repo.js"

export const DiscoveryLive = HttpApiBuilder.group(Api, "Discovery", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* DiscoveryRepo
    return handlers.handle("discovery", () => Effect.map(repo.getDiscovery, detailJson))
  })
).pipe(Layer.provide(DiscoveryRepo.layer))
