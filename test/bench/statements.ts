/**
 * The statements the baselines run, taken from the service's own repository: each repository
 * method is run once against the bench database with a statement transformer that records the
 * compiled [text, params] (and a Statements service that records what the prepared detail reads
 * send, src/Database/Statements.ts). So the
 * baselines run the identical SQL text, whatever the repository builds today; nothing is copied.
 */
import { Statement } from "effect/sql"
import { ConfigProvider, Effect, Layer } from "effect"
import { AppConfig, AppConfigShape } from "../../src/Config.js"
import { DatabaseLive, sessionSettings, Statements } from "../../src/Database.js"
import { SongsRepo } from "../../src/Songs/Repo.js"

export interface CapturedStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** What a baseline server needs: texts, fixed parameters, where a cursor's key goes, session settings. */
export interface BaselineStatements {
  /** song detail: params = [songId] */
  readonly detail: CapturedStatement
  /** /v1/songs?limit=LIST_LIMIT (page 1): params as captured */
  readonly listFirst: CapturedStatement
  /** /v1/songs?limit=LIST_LIMIT&cursor=...: params as captured, the cursor's key values go at `keyPositions` */
  readonly listAfter: CapturedStatement & { readonly keyPositions: ReadonlyArray<number> }
  readonly listLimit: number
  /** the cursor scope of the default /v1/songs sort */
  readonly listScope: string
  /** startup parameters of every connection (src/Database.ts) */
  readonly session: Record<string, string>
}

export const LIST_LIMIT = 20

const decodeCursor = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s: string; o: number; k: Array<string | number> }

/** What the repository ran as prepared statements (src/Database/Statements.ts), the detail reads' path. */
const sentPrepared: Array<CapturedStatement> = []
const RecordingStatements = Layer.effect(
  Statements,
  Statements.useSync((statements): Statements["Service"] => ({
    ...statements,
    run: (prepared, key) =>
      Effect.suspend(() => {
        sentPrepared.push({ text: prepared.text, params: prepared.values(key) })
        return statements.run(prepared, key)
      })
  }))
)

/** Runs `effect` and returns the one statement it executed, through @effect/sql or prepared. */
const captureOne = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const seen: Array<CapturedStatement> = []
    sentPrepared.length = 0
    yield* effect.pipe(
      Effect.provideService(Statement.CurrentTransformer, (statement) =>
        Effect.sync(() => {
          const [text, params] = statement.compile()
          seen.push({ text, params })
          return statement
        }))
    )
    seen.push(...sentPrepared)
    if (seen.length !== 1) return yield* Effect.die(new Error(`expected one statement, the repository ran ${seen.length}`))
    return seen[0]!
  })

/**
 * `probeSongId` must be a public song; `deepCursor` a next_cursor of /v1/songs?limit=LIST_LIMIT
 * (default sort) taken from the service.
 */
export const captureStatements = (databaseUrl: string, probeSongId: number, deepCursor: string) =>
  Effect.gen(function*() {
    const repo = yield* SongsRepo
    const config = yield* AppConfig
    const detail = yield* captureOne(repo.findSong(probeSongId, "public"))
    if (detail.params.length !== 1 || detail.params[0] !== probeSongId) {
      return yield* Effect.die(new Error(`song detail parameters are not [id]: ${JSON.stringify(detail.params)}`))
    }
    const listFirst = yield* captureOne(repo.listSongs({}, { limit: LIST_LIMIT }))
    const listAfter = yield* captureOne(repo.listSongs({}, { limit: LIST_LIMIT, cursor: deepCursor }))
    const cursor = decodeCursor(deepCursor)
    const keyPositions = cursor.k.map((value) => listAfter.params.findIndex((param) => param === value))
    if (keyPositions.some((position) => position < 0) || new Set(keyPositions).size !== keyPositions.length) {
      return yield* Effect.die(
        new Error(`cannot find the cursor key ${JSON.stringify(cursor.k)} in ${JSON.stringify(listAfter.params)}`)
      )
    }
    const statements: BaselineStatements = {
      detail,
      listFirst,
      listAfter: { ...listAfter, keyPositions },
      listLimit: LIST_LIMIT,
      listScope: cursor.s,
      session: sessionSettings(config.cdnBaseUrl, config.databaseStatementTimeoutMs)
    }
    return statements
  }).pipe(
    Effect.provide(SongsRepo.layer.pipe(Layer.provide(RecordingStatements))),
    Effect.provide(DatabaseLive),
    Effect.provide(Layer.effect(AppConfig, AppConfigShape)),
    // the service child gets the same (only DATABASE_URL): defaults for everything else
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { DATABASE_URL: databaseUrl } }))),
    Effect.scoped,
    (effect) => Effect.runPromise(effect)
  )
