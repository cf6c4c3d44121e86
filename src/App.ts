import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiSwagger from "@effect/platform/HttpApiSwagger"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AlbumsLive } from "./Albums/Http.js"
import { Api } from "./Api.js"
import { ArtistsLive } from "./Artists/Http.js"
import { AppConfig } from "./Config.js"
import { ChangesLive } from "./Changes/Http.js"
import { CuratedListsLive } from "./CuratedLists/Http.js"
import { DatabaseLive, DatabaseMode, migrate } from "./Database.js"
import { DiscoveryLive } from "./Discovery/Http.js"
import { GenresLive } from "./Genres/Http.js"
import { LabelsLive } from "./Labels/Http.js"
import { Edge } from "./Http/Edge.js"
import { EnvelopeErrorsLive } from "./Http/Errors.js"
import { withRequestTracing } from "./Http/Observe.js"
import { makePipeline } from "./Http/Pipeline.js"
import { ServerLayer } from "./Http/Server.js"
import { logFeatures, LoggingLive } from "./Logging.js"
import { DOCS_PATH, MetaLive, OPENAPI_PATH } from "./Meta/Http.js"
import { MemoryGuardLive } from "./MemoryGuard.js"
import { SearchLive } from "./Search/Http.js"
import { GracefulShutdownLive, InFlightRequests } from "./Shutdown.js"
import { SongsLive } from "./Songs/Http.js"
import { StaffLive } from "./Staff/Http.js"
import { RateLimiter } from "./RateLimit/RateLimiter.js"
import { ResponseCache } from "./Cache/ResponseCache.js"
import { TokenVerifier } from "./Auth/TokenVerifier.js"
import { TracingLive } from "./Telemetry.js"
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
  MetaLive,
  StaffLive
)

export const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(GroupsLive))

/** The edge and its services: one instance each, shared by the front door, the pipeline and the Staff group. */
const EdgeLive = Edge.layer.pipe(Layer.provideMerge(Layer.mergeAll(RateLimiter.layer, ResponseCache.layer, TokenVerifier.layer)))

/** The router matches paths exactly as the edge does (docs/edge.md): case, slashes and all. */
const ExactRoutesLive = HttpRouter.setRouterConfig({ caseSensitive: true, ignoreDuplicateSlashes: false, ignoreTrailingSlash: false })

/** The whole service on a Bun server: the API, its docs, and the one HTTP pipeline. */
export const ServerLive = withRequestTracing(
  Layer.unwrapEffect(Effect.map(makePipeline, (pipeline) => HttpApiBuilder.serve(pipeline)))
).pipe(
  Layer.provide(HttpApiSwagger.layer({ path: DOCS_PATH })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })),
  Layer.provide(EnvelopeErrorsLive),
  Layer.provide(ApiLive),
  Layer.provide(ExactRoutesLive),
  HttpServer.withLogAddress,
  Layer.provideMerge(ServerLayer),
  Layer.provide(EdgeLive)
)

/** The server, drained before it closes: built after it, so finalized before it. */
const DrainedServerLive = GracefulShutdownLive.pipe(
  Layer.provideMerge(ServerLive),
  Layer.provideMerge(InFlightRequests.layer)
)

/** The running service. Its outputs (server, database, config) let tests reach inside. */
export const AppLive = DrainedServerLive.pipe(
  Layer.provideMerge(DatabaseReady),
  Layer.provide(Layer.effectDiscard(logFeatures)),
  Layer.provide(MemoryGuardLive),
  Layer.provide(TracingLive),
  Layer.provide(LoggingLive),
  Layer.provideMerge(AppConfig.layer)
)
