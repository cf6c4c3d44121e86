import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { Api } from "../Api.js"
import { AppConfig } from "../Config.js"
import { echo, NotFound } from "../Contract/Errors.js"
import { detailJson, JSON_CONTENT_TYPE } from "../Queries/Json.js"
import { FILE_NAME, PREVIOUS_MANIFEST, readManifest, type SnapshotFile } from "./Manifest.js"
import { byteRange, noneMatches } from "./Ranges.js"

const GZIP = "application/gzip"

/** A file of the latest snapshot or the one before it (downloads under way when a new one came). */
const keptFile = (dir: string, name: string): SnapshotFile | undefined => {
  if (!FILE_NAME.test(name)) return undefined
  const listed = [readManifest(dir), readManifest(dir, PREVIOUS_MANIFEST)].flatMap((manifest) => manifest?.files ?? [])
  const file = listed.find((file) => file.name === name)
  return file !== undefined && existsSync(join(dir, name)) ? file : undefined
}

/** The file's answer to this request's validators and range, made whole here (the edge passes it on). */
const fileAnswer = (dir: string, file: SnapshotFile, headers: Readonly<Record<string, string | undefined>>) => {
  const etag = `"${file.sha256}"`
  const own = { etag, "accept-ranges": "bytes" }
  if (noneMatches(headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers: own })
  const ifRange = headers["if-range"]
  const range = ifRange === undefined || ifRange === etag ? byteRange(headers["range"], file.bytes) : undefined
  const body = Bun.file(join(dir, file.name))
  if (range === "unsatisfiable") {
    const message = `The range ${echo(headers["range"] ?? "")} is not within the file's ${file.bytes} bytes.`
    const text = JSON.stringify({ error: { code: "bad_request", message } })
    return HttpServerResponse.text(text, {
      status: 416,
      contentType: JSON_CONTENT_TYPE,
      headers: { "accept-ranges": "bytes", "content-range": `bytes */${file.bytes}`, "content-type": JSON_CONTENT_TYPE }
    })
  }
  if (range === undefined) {
    return HttpServerResponse.raw(body, { status: 200, headers: { ...own, "content-type": GZIP, "content-length": String(file.bytes) } })
  }
  return HttpServerResponse.raw(body.slice(range.start, range.end + 1), {
    status: 206,
    headers: {
      ...own,
      "content-type": GZIP,
      "content-length": String(range.end - range.start + 1),
      "content-range": `bytes ${range.start}-${range.end}/${file.bytes}`
    }
  })
}

export const SnapshotsLive = HttpApiBuilder.group(Api, "Snapshots", (handlers) =>
  Effect.gen(function*() {
    const dir = resolve((yield* AppConfig).snapshotDir)
    return handlers
      .handle("manifest", () => {
        const manifest = readManifest(dir)
        if (manifest === undefined) return Effect.fail(new NotFound({ message: "No snapshot has been written yet." }))
        const files = manifest.files.map((file) => ({ ...file, url: `/v1/snapshots/${file.name}` }))
        return Effect.succeed(detailJson(JSON.stringify({ ...manifest, files })))
      })
      .handle("file", ({ params: { file: name } }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const file = keptFile(dir, name)
          if (file === undefined) return Effect.fail(new NotFound({ message: `Snapshot file ${echo(name)} was not found.` }))
          return Effect.succeed(fileAnswer(dir, file, request.headers))
        }))
  })
)
