/**
 * What a snapshot is on disk (docs/api.md, "Snapshots"): per public type a gzip-compressed NDJSON
 * file named after its content, and `manifest.json` naming them with the feed cursor to continue
 * from. The writer (src/Snapshots/Writer.ts) and the endpoints (src/Snapshots/Http.ts) share this.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { SnapshotType } from "./Api.js"


export interface SnapshotFile {
  readonly type: SnapshotType
  readonly name: string
  readonly rows: number
  readonly bytes: number
  readonly sha256: string
}

export interface Manifest {
  readonly created_at: string
  readonly cursor: string
  readonly files: ReadonlyArray<SnapshotFile>
}

/** `songs-0123456789abcdef.ndjson.gz`: the type, then the first 16 hex digits of the file's sha256. */
export const FILE_NAME = /^(songs|albums|curated_lists|artists|genres|labels|users)-[0-9a-f]{16}\.ndjson\.gz$/

export const fileNameOf = (type: SnapshotType, sha256: string) => `${type}-${sha256.slice(0, 16)}.ndjson.gz`

/** The latest snapshot's manifest, and the one before it (its files are kept for downloads under way). */
export const MANIFEST = "manifest.json"
export const PREVIOUS_MANIFEST = "manifest-previous.json"

export const readManifest = (dir: string, name: string = MANIFEST): Manifest | undefined => {
  const path = join(dir, name)
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Manifest
  } catch {
    return undefined
  }
}
