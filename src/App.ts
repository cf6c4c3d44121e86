import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiSwagger from "effect/http-api/HttpApiSwagger"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Scope from "effect/Scope"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import { AlbumsLive } from "./Albums/Http.js"
import { Api } from "./Api.js"
import { API_VERSION } from "./Contract/Api.js"
import { ArtistsLive } from "./Artists/Http.js"
import { AppConfig } from "./Config.js"
import { ChangesLive } from "./Changes/Http.js"
import { CuratedListsLive } from "./CuratedLists/Http.js"
import { DatabaseLive, DatabaseMode, migrate } from "./Database.js"
import { pendingSchemaFiles } from "./Database/Schema.js"
import { DiscoveryLive } from "./Discovery/Http.js"
import { GenresLive } from "./Genres/Http.js"
import { LabelsLive } from "./Labels/Http.js"
import { Edge } from "./Http/Edge.js"
import { DatabaseErrorsLive, DecodeErrorsLive, EnvelopeErrorsLive } from "./Http/Errors.js"
import { type App, makePipeline } from "./Http/Pipeline.js"
import { MetricsListenerLive } from "./Http/MetricsListener.js"
import { disagreement, ROUTER_CONFIG } from "./Http/Routes.js"
import { ServerLayer } from "./Http/Server.js"
import { ServerSpans } from "./Http/ServerSpans.js"
import { logFeatures, LoggingLive } from "./Logging.js"
import { DOCS_PATH, MetaLive, OPENAPI_PATH } from "./Meta/Http.js"
import { MemoryGuardLive } from "./MemoryGuard.js"
import { processMetricsLayer } from "./Metrics.js"
import { ReplayLagLive } from "./ReplayLag.js"
import { SearchLive } from "./Search/Http.js"
import { GracefulShutdownLive, InFlightRequests } from "./Shutdown.js"
import { SnapshotJobLive } from "./Snapshots/Job.js"
import { SnapshotsLive } from "./Snapshots/Http.js"
import { SongsLive } from "./Songs/Http.js"
import { StaffLive } from "./Staff/Http.js"
import { RateLimiter } from "./RateLimit/RateLimiter.js"
import { ResponseCache } from "./Cache/ResponseCache.js"
import { TokenVerifier } from "./Auth/TokenVerifier.js"
import * as Telemetry from "./Telemetry.js"
import { UsersLive } from "./Users/Http.js"

/** An empty embedded database gets the demo catalogue; PostgreSQL is never seeded unasked. */
const seedEmptyEmbeddedDatabase = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { demoSeedSongs } = yield* AppConfig
  const [row] = yield* sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM songs) AS empty`
  if (demoSeedSongs === 0 || row?.empty !== true) return
  yield* Effect.logInfo(`seeding the demo catalogue (${demoSeedSongs} songs) into the empty embedded database`)
  // loaded only here: the generator and its name lists are memory a serving process never needs
  const { seedCatalogue } = yield* Effect.promise(() => import("./Seed/generate.js"))
  const summary = yield* seedCatalogue(sql, {
    songs: demoSeedSongs,
    onProgress: (done, total) => {
      if (done === total || done % 1000 === 0) console.error(`seeding: ${done}/${total} songs`)
    }
  })
  yield* Effect.logInfo("demo catalogue ready").pipe(Effect.annotateLogs({ rows: summary.totalRows }))
}).pipe(Effect.orDie)

/** The database with its schema up to date: nothing that needs it starts before migrations ran. */
export const DatabaseReady = Layer.effectDiscard(
  Effect.gen(function*() {
    const mode = yield* DatabaseMode
    // A read replica (hot standby) cannot take DDL: the primary is migrated with `bun run migrate`.
    const sql = yield* SqlClient.SqlClient
    const [standby] = yield* sql<{ readonly replica: boolean }>`SELECT pg_is_in_recovery() AS replica`
    if (standby?.replica === true) {
      const missing = yield* pendingSchemaFiles
      if (missing.length > 0) {
        return yield* Effect.fail(
          new Error(`the read replica's schema lacks ${missing.join(", ")}: run bun run migrate against the primary`)
        )
      }
    }
    const applied = standby?.replica === true ? [] : yield* migrate
    yield* Effect.logInfo(`database: ${mode.description}${standby?.replica === true ? " (read replica)" : ""}`).pipe(
      Effect.annotateLogs({ migrations_applied: applied.join(",") || "none" })
    )
    if (mode.kind === "embedded") yield* seedEmptyEmbeddedDatabase
  })
).pipe(Layer.provideMerge(DatabaseLive))

const GroupsLive = Layer.mergeAll(
  SongsLive,
  AlbumsLive,
  CuratedListsLive,
  ArtistsLive,
  GenresLive,
  LabelsLive,
  UsersLive,
  SearchLive,
  DiscoveryLive,
  ChangesLive,
  SnapshotsLive,
  MetaLive,
  StaffLive
).pipe(Layer.provide(Layer.mergeAll(DecodeErrorsLive, EnvelopeErrorsLive, DatabaseErrorsLive)))

/** The HttpApi's routes, its OpenAPI document and the docs page, on one router. */
export const ApiLive = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: OPENAPI_PATH }),
  HttpApiSwagger.layer(Api, { path: DOCS_PATH })
).pipe(Layer.provide(GroupsLive), Layer.provide(HttpServer.layerServices))

/** The edge and its services: one instance each, shared by the front door, the pipeline and the Staff group. */
const EdgeLive = Edge.layer.pipe(Layer.provideMerge(Layer.mergeAll(RateLimiter.layer, ResponseCache.layer, TokenVerifier.layer)))

/**
 * Each group's handlers run with the context the group was built in (HttpApiBuilder.group) laid
 * over the request's: built without a TracerEnabled of their own, they keep the request's (on
 * only while a sampled request runs: src/Telemetry.ts).
 */
const withRequestsTracerSetting = <A, E, R>(build: Effect.Effect<A, E, R>) =>
  Effect.updateContext(build, (context: Context.Context<R>) => Context.omit(References.TracerEnabled)(context) as Context.Context<R>)

/**
 * Effect's router under the edge's settings (src/Http/Routes.ts ROUTER_CONFIG), which notes every
 * path it is given: the service does not start unless they are the edge's routes, so the edge and
 * the router, one matcher over one route list, find the same route for any path.
 */
const checkedRouter = (registered: Array<string>) =>
  Layer.effect(
    HttpRouter.HttpRouter,
    Effect.map(HttpRouter.make, (router) =>
      HttpRouter.HttpRouter.of({
        ...router,
        addAll: (routes) => {
          for (const route of routes) registered.push(route.path)
          return router.addAll(routes)
        },
        add: (method, path, handler, options) => {
          registered.push(path)
          return router.add(method, path, handler, options)
        }
      }))
  ).pipe(Layer.provide(Layer.succeed(HttpRouter.RouterConfig, ROUTER_CONFIG)))

/** The HttpApi's router as the app the server runs (HttpRouter.toHttpEffect, with the router checked). */
const routerOf = <E, R>(api: Layer.Layer<never, E, R>) =>
  Effect.gen(function*() {
    const registered: Array<string> = []
    const build = Effect.contextWith((context: Context.Context<Scope.Scope>) =>
      Layer.buildWithMemoMap(
        Layer.provideMerge(api, checkedRouter(registered)),
        Layer.CurrentMemoMap.forkOrCreate(context),
        Context.get(context, Scope.Scope)
      )
    ) as Effect.Effect<Context.Context<HttpRouter.HttpRouter>, E, Exclude<HttpRouter.Request.Without<R>, HttpRouter.HttpRouter> | Scope.Scope>
    const built = yield* withRequestsTracerSetting(build)
    const differs = disagreement(registered)
    if (differs !== undefined) return yield* Effect.die(new Error(differs))
    return Context.get(built, HttpRouter.HttpRouter).asHttpEffect() as App
  })

/**
 * An app served through the one HTTP pipeline (observe -> edge -> app -> answer) on Effect's
 * HttpServer, Bun's (src/Http/Server.ts). The service serves its HttpApi's router; a test may
 * serve another router behind the same edge.
 */
export const servedThroughPipeline = <E, R>(app: Effect.Effect<App, E, R>) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const router = yield* app
      const pipeline = yield* makePipeline
      yield* HttpServer.serveEffect(pipeline(router))
      const { address } = yield* HttpServer.HttpServer
      yield* Effect.logInfo(`Listening on http://0.0.0.0:${address._tag === "UnixPathAddress" ? address.path : address.port}`)
    })
  ).pipe(
    Layer.provideMerge(ServerLayer),
    Layer.provide(Layer.merge(EdgeLive, ServerSpans.layer))
  )

/** The whole service: the API and its docs on one router, through the pipeline. */
export const ServerLive = servedThroughPipeline(routerOf(ApiLive))

/** The server, drained before it closes: built after it, so finalized before it. */
const DrainedServerLive = GracefulShutdownLive.pipe(
  Layer.provideMerge(ServerLive),
  Layer.provideMerge(InFlightRequests.layer)
)

/** The running service. Its outputs (server, database, config) let tests reach inside. */
export const AppLive = Layer.mergeAll(DrainedServerLive, ReplayLagLive, SnapshotJobLive).pipe(
  Layer.provideMerge(DatabaseReady),
  Layer.provide(Layer.effectDiscard(logFeatures)),
  Layer.provide(MemoryGuardLive),
  // the metrics listener, up before the database and closed after the public server
  Layer.provide(Layer.merge(MetricsListenerLive, processMetricsLayer(API_VERSION))),
  Layer.provide(Telemetry.layer),
  Layer.provide(LoggingLive),
  Layer.provideMerge(AppConfig.layer)
)
