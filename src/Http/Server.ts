import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as BunHttpServer from "@effect/platform-bun/BunHttpServer"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import { AppConfig } from "../Config.js"
import { InFlightRequests } from "../Shutdown.js"
import { bareErrorAnswer, toWebResponse } from "./Answer.js"
import { envelope } from "./Errors.js"
import { makeFrontDoor } from "./FrontDoor.js"

type BunServer = ReturnType<typeof Bun.serve>
type Handler = (request: Request, server: BunServer) => Response | Promise<Response>

/** Before the app is up and after it is down: the envelope all the same. */
const notServing: Handler = (request) =>
  toWebResponse(request.method, bareErrorAnswer(503, envelope("internal_error", "The service is not serving yet; try again shortly.")))

/** What Bun sends when a handler throws (it should not): never its own page. */
const thrown = (error: Error) => {
  console.error(`request failed: ${error.name}: ${error.message}`)
  return toWebResponse("GET", bareErrorAnswer(500, envelope("internal_error", "Something went wrong on our side; it has been logged.")))
}

/**
 * The HTTP server: Bun.serve with the front door (src/Http/FrontDoor.ts) ahead of the Effect
 * app. It does what @effect/platform-bun's server does for this service (one fiber per request,
 * interrupted when the client hangs up; HEAD without a body) and hands the Bun server to the
 * graceful shutdown, which platform-bun keeps private.
 */
const make = Effect.gen(function*() {
  const config = yield* AppConfig
  const inFlight = yield* InFlightRequests
  const frontDoor = yield* makeFrontDoor
  let app = notServing
  const server = Bun.serve({
    port: config.port,
    error: thrown,
    fetch: frontDoor === undefined
      ? (request, server) => app(request, server)
      : (request, server) => frontDoor(request, server) ?? app(request, server)
  })
  inFlight.server = server
  // As platform-bun does: stop listening, let open responses finish (the drain came first).
  yield* Effect.addFinalizer(() => Effect.sync(() => void server.stop()))

  return HttpServer.make({
    address: { _tag: "TcpAddress", port: server.port ?? config.port, hostname: server.hostname ?? "0.0.0.0" },
    serve: (httpApp, middleware) =>
      Effect.gen(function*() {
        const runFork = yield* FiberSet.makeRuntime<never>()
        const runtime = yield* Effect.runtime<never>()
        // by the web Request: the pipeline may pass on a modified HttpServerRequest with the same source
        const resolvers = new WeakMap<Request, (response: Response) => void>()
        // The pipeline (the middleware) answers every request itself, so it goes inside: the
        // platform would otherwise send the router's response before the pipeline's.
        const handled = HttpApp.toHandled(
          (middleware === undefined ? httpApp : middleware(httpApp)) as HttpApp.Default<unknown>,
          (request, response) =>
            Effect.sync(() => {
              const source = request.source as Request
              const resolve = resolvers.get(source)
              resolvers.delete(source)
              resolve?.(HttpServerResponse.toWeb(response, { withoutBody: request.method === "HEAD", runtime }))
            })
        )
        const handle: Handler = (request, bun) =>
          new Promise((resolve) => {
            resolvers.set(request, resolve)
            const address = bun.requestIP(request)?.address
            const webRequest = HttpServerRequest.fromWeb(request)
            const serverRequest = address === undefined ? webRequest : webRequest.modify({ remoteAddress: address })
            const fiber = runFork(Effect.provideService(handled, HttpServerRequest.HttpServerRequest, serverRequest))
            request.signal.addEventListener("abort", () => void runFork(fiber.interruptAsFork(HttpServerError.clientAbortFiberId)), {
              once: true
            })
          })
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            app = handle
          }),
          () =>
            Effect.sync(() => {
              app = notServing
            })
        )
      })
  })
})

/** The server with the platform services HttpApi needs (file system, paths, ETags) from platform-bun. */
export const ServerLayer = Layer.mergeAll(Layer.scoped(HttpServer.HttpServer, make), BunHttpServer.layerContext)
