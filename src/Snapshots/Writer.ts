/**
 * Writes a snapshot (docs/api.md, "Snapshots"): every public row of every type, read in one
 * REPEATABLE READ transaction through a server-side cursor a batch at a time, each row's JSON
 * built by the statement its detail (or list item) is served with, gzip-compressed as it streams
 * to a temporary file that is renamed after its sha256 when complete. Nothing is held whole.
 */
import * as SqlClient from "effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash, randomBytes } from "node:crypto"
import { once } from "node:events"
import { createWriteStream, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createGzip } from "node:zlib"
import { publicAlbumRows } from "../Albums/Repo.js"
import { publicArtistRows } from "../Artists/Repo.js"
import { snapshotCursor } from "../Changes/Repo.js"
import { publicCuratedListRows } from "../CuratedLists/Repo.js"
import type { PublicRows } from "../Queries/Detail.js"
import { publicGenreRows } from "../Genres/Repo.js"
import { publicLabelRows } from "../Labels/Repo.js"
import { publicSongRows } from "../Songs/Repo.js"
import { publicUserRows } from "../Users/Repo.js"
import { takePidLock } from "../PidLock.js"
import {
  FILE_NAME,
  fileNameOf,
  MANIFEST,
  type Manifest,
  PREVIOUS_MANIFEST,
  readManifest,
  type SnapshotFile
} from "./Manifest.js"
import type { SnapshotType } from "./Api.js"

const SOURCES: ReadonlyArray<readonly [SnapshotType, PublicRows]> = [
  ["songs", publicSongRows],
  ["albums", publicAlbumRows],
  ["curated_lists", publicCuratedListRows],
  ["artists", publicArtistRows],
  ["genres", publicGenreRows],
  ["labels", publicLabelRows],
  ["users", publicUserRows]
]

/** Rows per FETCH: a song detail is ~1-3 KB, so a batch is about a megabyte at most. */
const BATCH_ROWS = 500

/** A gzip stream into a file, counting and hashing the compressed bytes as they are written. */
const gzipFile = (path: string) => {
  const gzip = createGzip()
  const out = createWriteStream(path)
  const hash = createHash("sha256")
  let bytes = 0
  gzip.on("data", (chunk: Buffer) => {
    hash.update(chunk)
    bytes += chunk.length
  })
  gzip.pipe(out)
  const failed = Promise.race([once(out, "error"), once(gzip, "error")]).then(([error]) => Promise.reject(error))
  failed.catch(() => undefined)
  return {
    write: (text: string): Promise<void> =>
      gzip.write(text) ? Promise.resolve() : Promise.race([once(gzip, "drain").then(() => undefined), failed]),
    end: async () => {
      gzip.end()
      await Promise.race([once(out, "close"), failed])
      return { bytes, sha256: hash.digest("hex") }
    },
    abort: () => {
      gzip.destroy()
      out.destroy()
    }
  }
}

const io = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => new Error(`snapshot: ${what}: ${String(cause)}`, { cause }) })

/** One type's rows, from the transaction's cursor into `dir`, as a file named after its content. */
const writeType = (sql: SqlClient.SqlClient, dir: string, type: SnapshotType, rows: PublicRows) =>
  Effect.gen(function*() {
    const temp = join(dir, `.${type}-${randomBytes(6).toString("hex")}.tmp`)
    const file = yield* Effect.acquireRelease(
      Effect.sync(() => gzipFile(temp)),
      (file, exit) => exit._tag === "Success" ? Effect.void : Effect.sync(() => {
        file.abort()
        rmSync(temp, { force: true })
      })
    )
    yield* sql.unsafe(`DECLARE snapshot_rows NO SCROLL CURSOR FOR ${rows.select} ORDER BY ${rows.key}`)
    let count = 0
    while (true) {
      const batch = yield* sql.unsafe<{ readonly json: string }>(`FETCH ${BATCH_ROWS} FROM snapshot_rows`)
      if (batch.length === 0) break
      count += batch.length
      let text = ""
      for (const row of batch) text += row.json + "\n"
      yield* io(`writing ${type}`, () => file.write(text))
    }
    yield* sql.unsafe(`CLOSE snapshot_rows`)
    const { bytes, sha256 } = yield* io(`closing ${type}`, file.end)
    const name = fileNameOf(type, sha256)
    renameSync(temp, join(dir, name))
    return { type, name, rows: count, bytes, sha256 } satisfies SnapshotFile
  }).pipe(Effect.scoped)

/**
 * The new manifest in place (written aside, then renamed over the old one, which stays as the
 * previous); files neither of them names are deleted.
 */
const publish = (dir: string, manifest: Manifest) => {
  const latest = readManifest(dir)
  if (latest !== undefined) writeFileSync(join(dir, PREVIOUS_MANIFEST), JSON.stringify(latest, null, 2) + "\n")
  const temp = join(dir, `.manifest-${randomBytes(6).toString("hex")}.tmp`)
  writeFileSync(temp, JSON.stringify(manifest, null, 2) + "\n")
  renameSync(temp, join(dir, MANIFEST))
  const kept = new Set([...manifest.files, ...(latest?.files ?? [])].map((file) => file.name))
  for (const name of readdirSync(dir)) {
    if (FILE_NAME.test(name) && !kept.has(name)) rmSync(join(dir, name), { force: true })
  }
}

/**
 * One writer at a time per directory (replicas sharing SNAPSHOT_DIR, the command beside the
 * service): a lock file naming the writer's process; one left by a process that is gone is taken over.
 */
const lockDir = (dir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const path = join(dir, ".writing")
        const holder = takePidLock(path)
        if (holder !== undefined) throw new Error(`process ${holder} is writing a snapshot in ${dir}`)
        return path
      },
      catch: (cause) => new Error(`snapshot: ${cause instanceof Error ? cause.message : String(cause)}`)
    }),
    (path) => Effect.sync(() => rmSync(path, { force: true }))
  )

/** A snapshot of the public catalogue into `dir`; its manifest. */
export const writeSnapshot = (dir: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    mkdirSync(dir, { recursive: true })
    yield* lockDir(dir)
    // what a writer stopped midway left (only the lock's holder writes here)
    for (const name of readdirSync(dir)) if (name.startsWith(".") && name.endsWith(".tmp")) rmSync(join(dir, name), { force: true })
    const manifest = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
      // the first statement takes the transaction's snapshot: its xmin, and now() its rows are judged at
      const [origin] = yield* sql.unsafe<{ readonly key: string; readonly xmin: string; readonly at: string }>(
        `SELECT encode(cursor_key, 'hex') AS key, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
                (extract(epoch FROM now()) * 1000000)::bigint::text AS at
         FROM change_feed_origin`
      )
      const files: Array<SnapshotFile> = []
      for (const [type, rows] of SOURCES) files.push(yield* writeType(sql, dir, type, rows))
      const at = Number(origin!.at)
      return {
        created_at: new Date(Math.floor(at / 1000)).toISOString(),
        cursor: snapshotCursor(Buffer.from(origin!.key, "hex"), origin!.xmin, at),
        files
      } satisfies Manifest
    }))
    publish(dir, manifest)
    return manifest
  }).pipe(Effect.scoped)
