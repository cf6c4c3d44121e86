import * as HttpEffect from "effect/http/HttpEffect"
import type * as HttpMiddleware from "effect/http/HttpMiddleware"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { AppConfig } from "../Config.js"
import { InFlightRequests, whenLetGo } from "../Shutdown.js"
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

const make = Effect.gen(function*() {
  const config = yield* AppConfig
  const inFlight = yield* InFlightRequests
  const frontDoor = yield* makeFrontDoor
  let app = notServing
  const served: Handler = frontDoor === undefined
    ? (request, server) => app(request, server)
    : (request, server) => frontDoor(request, server) ?? app(request, server)
  const server = Bun.serve({
    port: config.port,
    error: thrown,
    // an answer made at once is held like the pipeline's while the listener closes (src/Shutdown.ts)
    fetch: (request, server) => {
      const response = served(request, server)
      return response instanceof Response ? whenLetGo(inFlight, response) : response
    }
  })
  inFlight.server = server
  // stop listening, let open responses finish (the drain came first)
  yield* Effect.addFinalizer(() => Effect.sync(() => void server.stop()))

  const serve = (
    httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | Scope.Scope>,
    middleware?: HttpMiddleware.HttpMiddleware
  ) =>
    Effect.gen(function*() {
      const runFork = yield* FiberSet.makeRuntime<never>()
      const context = yield* Effect.context<never>()
      // by the web Request: the pipeline may pass on a modified HttpServerRequest with the same source
      const resolvers = new WeakMap<Request, (response: Response | Promise<Response>) => void>()
      const handled = HttpEffect.toHandled(httpApp, (request, response) =>
        Effect.sync(() => {
          const source = request.source as Request
          const resolve = resolvers.get(source)
          resolvers.delete(source)
          resolve?.(whenLetGo(inFlight, HttpServerResponse.toWeb(response, { withoutBody: request.method === "HEAD", context })))
        }), middleware)
      const handle: Handler = (request, bun) =>
        new Promise((resolve) => {
          resolvers.set(request, resolve)
          const address = bun.requestIP(request)?.address
          const webRequest = HttpServerRequest.fromWeb(request)
          const serverRequest = address === undefined ? webRequest : webRequest.modify({ remoteAddress: Option.some(address) })
          const fiber = runFork(Effect.provideService(handled, HttpServerRequest.HttpServerRequest, serverRequest))
          request.signal.addEventListener("abort", () => fiber.interruptUnsafe(undefined, HttpServerError.ClientAbort.annotation), {
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

  return HttpServer.make({
    serve,
    address: NetAddress.socketAddressFromInputUnsafe({ address: "0.0.0.0", port: server.port ?? config.port })
  })
})

/**
 * Effect's own `HttpServer` on Bun.serve, with the front door (src/Http/FrontDoor.ts) ahead of
 * the Effect app: one fiber per request (interrupted when the client hangs up; HEAD without a
 * body), and the Bun server handed to the graceful shutdown. Whatever serves through
 * `HttpServer.HttpServer` (`HttpServer.serveEffect`, `HttpRouter.serve`, `layerTestClient`) runs
 * here. The service needs nothing else of a platform package (docs/decisions.md).
 */
export const ServerLayer = Layer.effect(HttpServer.HttpServer, make)
