import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope } from "../Contract/Envelope.js"
import { NotFoundError } from "../Contract/Errors.js"
import { TextParam } from "../Contract/Params.js"

/** The feed's type names, in the order a snapshot lists them. */
export const SNAPSHOT_TYPES = ["songs", "albums", "curated_lists", "artists", "genres", "labels", "users"] as const
export type SnapshotType = (typeof SNAPSHOT_TYPES)[number]

export const SnapshotFile = Schema.Struct({
  type: Schema.Literals(SNAPSHOT_TYPES),
  name: Schema.String,
  rows: Schema.Int,
  bytes: Schema.Int,
  sha256: Schema.String,
  url: Schema.String
}).annotate({ identifier: "SnapshotFile" })

export const Snapshot = Schema.Struct({
  created_at: Schema.String,
  cursor: Schema.String,
  files: Schema.Array(SnapshotFile)
}).annotate({ identifier: "Snapshot" })

const byName = Schema.Struct({
  file: TextParam("file", { type: "string", description: "A file's name from the manifest, e.g. songs-0123456789abcdef.ndjson.gz." })
})

export class SnapshotsApi extends HttpApiGroup.make("Snapshots")
  .add(
    HttpApiEndpoint.get("manifest", "/snapshots", { success: DetailEnvelope(Snapshot, "SnapshotResponse"), error: NotFoundError })
      .annotate(OpenApi.Summary, "The latest snapshot of the public catalogue, for starting a mirror")
      .annotate(
        OpenApi.Description,
        "A file per type (songs, albums, curated_lists, artists, genres, labels, users): gzip-compressed NDJSON, " +
          "one line per public row, the `data` of its detail answer byte for byte (users: their /v1/users entry), " +
          "by id (users by username). `rows`, `bytes` and `sha256` describe the file; `url` downloads it. " +
          "Load the files, then follow /v1/changes from `cursor`: the copy becomes the current catalogue exactly. " +
          "not_found until a first snapshot is written."
      )
  )
  .add(
    HttpApiEndpoint.get("file", "/snapshots/:file", {
      params: byName,
      success: HttpApiSchema.StreamUint8Array({ contentType: "application/gzip" }),
      error: NotFoundError
    })
      .annotate(OpenApi.Summary, "One file of a snapshot (gzip-compressed NDJSON)")
      .annotate(
        OpenApi.Description,
        "The raw gzip bytes as `application/gzip` (no Content-Encoding: decompress them yourself), streamed. " +
          "The ETag is the file's sha256; its name changes whenever its content does, so it is " +
          "`Cache-Control: public, max-age=31536000, immutable`. One `Range: bytes=` range is answered 206 with " +
          "`Content-Range` (a range past the end: 416 with the error envelope, `Content-Range: bytes */size`); " +
          "If-None-Match answers 304 and If-Range is honoured. A name that no kept snapshot lists is not_found. " +
          "The files of the latest two snapshots are kept."
      )
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Snapshots") {}
