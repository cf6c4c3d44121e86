import * as SqlClient from "effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { resolve } from "node:path"
import { makeCursorSeal } from "../Changes/CursorSeal.js"
import { AppConfig } from "../Config.js"
import { readManifest } from "./Manifest.js"
import { writeSnapshot } from "./Writer.js"

/** After a failed write, the next try comes no sooner than this. */
const RETRY_MS = 10 * 60_000

/**
 * The service's snapshots (docs/api.md, "Snapshots"): in the background, one at start when the
 * latest in SNAPSHOT_DIR is missing, SNAPSHOT_INTERVAL_HOURS old or of another database (its cursor
 * is not sealed under this one's key: a data directory made anew), then each time it grows that
 * old. SNAPSHOT_INTERVAL_HOURS=0: none (the service serves what `bun run snapshot` wrote).
 */
export const SnapshotJobLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.snapshotIntervalHours === 0) return
    const sql = yield* SqlClient.SqlClient
    const dir = resolve(config.snapshotDir)
    const intervalMs = config.snapshotIntervalHours * 3_600_000
    const [origin] = yield* sql<{ readonly key: string }>`SELECT encode(cursor_key, 'hex') AS key FROM change_feed_origin`.pipe(Effect.orDie)
    const seal = makeCursorSeal(Buffer.from(origin!.key, "hex"))
    const ageMs = () => {
      const latest = readManifest(dir)
      return latest === undefined || seal.open(latest.cursor) === undefined
        ? Number.POSITIVE_INFINITY
        : Date.now() - Date.parse(latest.created_at)
    }
    const due = Effect.gen(function*() {
      if (ageMs() < intervalMs) return
      const started = performance.now()
      const manifest = yield* writeSnapshot(dir)
      yield* Effect.logInfo("snapshot written").pipe(Effect.annotateLogs({
        dir,
        ms: Math.round(performance.now() - started),
        rows: manifest.files.reduce((sum, file) => sum + file.rows, 0)
      }))
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("snapshot failed", cause)))
    const wait = Effect.suspend(() => Effect.sleep(Math.max(intervalMs - ageMs(), RETRY_MS)))
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(due, wait)))
  })
)
