import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"
import { API_VERSION } from "../Contract/Api.js"
import { Unavailable } from "../Contract/Errors.js"
import { detailJson } from "../Queries/Json.js"
import { MetaRepo } from "./Repo.js"
import { InFlightRequests } from "../Shutdown.js"
import * as Fiber from "effect/Fiber"

export const DOCS_PATH = "/docs"
export const OPENAPI_PATH = "/v1/openapi.json"

/** Every endpoint of the HttpApi, in declaration order: the index is derived, never hand-kept. */
export const listEndpoints = () => {
  const endpoints: Array<{ method: string; path: string; group: string; summary: string }> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, group, mergedAnnotations }) => {
      endpoints.push({
        method: endpoint.method,
        path: endpoint.path,
        group: Context.getOrElse(group.annotations, OpenApi.Title, () => group.identifier),
        summary: Context.getOrElse(mergedAnnotations, OpenApi.Summary, () => endpoint.identifier)
      })
    }
  })
  return endpoints
}

const shuttingDown = new Unavailable({ message: "The service is shutting down." })

/** /v1/health/ready asks the database at most this often per process, whatever the request rate. */
export const READY_PROBE_INTERVAL_MS = 1000

export const MetaLive = HttpApiBuilder.group(Api, "Meta", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* MetaRepo
    const inFlight = yield* InFlightRequests
    const services = yield* Effect.context<never>()
    const probe = repo.ping.pipe(
      // answer at the second; the abandoned ping ends on its own (src/Database/Runner.ts)
      Effect.forkDetach,
      Effect.flatMap(Fiber.join),
      Effect.timeoutOrElse({
        duration: "1 second",
        orElse: () => Effect.fail(new Unavailable({ message: "The database did not answer within 1 second." }))
      }),
      Effect.catchTag("SqlError", () => Effect.fail(new Unavailable({ message: "The database is not reachable." }))),
      Effect.as({ data: { status: "ok" as const, database: "reachable" as const } })
    )
    // One probe a second, run apart from any request (a caller that goes away ends nothing) and
    // shared by every caller until the next is due: a flood of readiness checks costs the
    // database nothing more (docs/operations.md).
    let latest: { readonly startedAt: number; readonly exit: Promise<Exit.Exit<Effect.Success<typeof probe>, Unavailable>> } | undefined
    const ready = Effect.suspend(() => {
      const now = Date.now()
      if (latest === undefined || now - latest.startedAt >= READY_PROBE_INTERVAL_MS) {
        latest = { startedAt: now, exit: Effect.runPromiseExitWith(services)(probe) }
      }
      const { exit } = latest
      return Effect.flatten(Effect.promise(() => exit))
    })
    const index = {
      name: "Malaysian music catalogue API",
      version: API_VERSION,
      docs_url: DOCS_PATH,
      openapi_url: OPENAPI_PATH,
      endpoints: listEndpoints()
    }
    return handlers
      .handle("index", () => Effect.succeed({ data: index }))
      .handle("health", () => Effect.succeed({ data: { status: "ok" as const } }))
      // from SIGTERM on, so that a load balancer stops sending while the listener still answers
      .handle("ready", () => inFlight.draining ? Effect.fail(shuttingDown) : ready)
      .handle("stats", () => Effect.map(repo.getCatalogueStats, detailJson))
  })
).pipe(Layer.provide(MetaRepo.layer))
