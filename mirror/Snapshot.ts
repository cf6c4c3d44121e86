import type { Polite } from "./Http.js"
import type { Store } from "./Store.js"

/** `GET /v1/snapshots`: the latest snapshot's files and the feed cursor it stands at. */
export interface Manifest {
  readonly created_at: string
  readonly cursor: string
  readonly files: ReadonlyArray<{
    readonly type: string
    readonly name: string
    readonly rows: number
    readonly bytes: number
    readonly sha256: string
    readonly url: string
  }>
}

/** A file's URL as the manifest gives it: absolute, from the service's root (`/v1/...`), or beside the manifest. */
const fileUrl = (base: string, url: string) =>
  /^https?:\/\//.test(url) ? url : url.startsWith("/") ? base + url : `${base}/v1/snapshots/${url}`

/** The manifest, or undefined when the service serves no snapshot (404). */
export const readManifest = async (http: Polite, base: string): Promise<Manifest | undefined> => {
  const response = await http.get(`${base}/v1/snapshots`)
  const text = await response.text()
  if (response.status === 404) return undefined
  if (response.status !== 200) throw new Error(`GET /v1/snapshots: ${response.status} ${text.slice(0, 200)}`)
  const manifest = (JSON.parse(text) as { data?: Manifest }).data
  if (typeof manifest?.cursor !== "string" || !Array.isArray(manifest.files)) throw new Error("GET /v1/snapshots: not a manifest")
  return manifest
}

/** The lines of a gzip-compressed NDJSON body, counting and hashing the compressed bytes on the way. */
async function* ndjsonLines(body: ReadableStream<Uint8Array>, seen: { bytes: number; hash: Bun.CryptoHasher }) {
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen.bytes += chunk.byteLength
        seen.hash.update(chunk)
        controller.enqueue(chunk)
      }
    })
  )
  const gunzip = new DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let rest = ""
  for await (const chunk of counted.pipeThrough(gunzip)) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n")
    rest = lines.pop()!
    for (const line of lines) if (line !== "") yield line
  }
  rest += decoder.decode()
  if (rest !== "") yield rest
}

/**
 * Loads every file of the snapshot and stores its cursor, in one transaction: a load that fails
 * or is killed halfway leaves the file as it was. Each file is checked against the manifest
 * (rows, bytes, sha256) before anything commits.
 */
export const loadSnapshot = async (
  http: Polite,
  base: string,
  manifest: Manifest,
  store: Store,
  log: (line: string) => void
): Promise<void> => {
  const loader = store.beginLoad()
  try {
    for (const file of manifest.files) {
      const response = await http.get(fileUrl(base, file.url))
      if (response.status !== 200 || response.body === null) {
        await response.body?.cancel()
        throw new Error(`GET ${file.url}: ${response.status}`)
      }
      const seen = { bytes: 0, hash: new Bun.CryptoHasher("sha256") }
      let rows = 0
      for await (const line of ndjsonLines(response.body, seen)) {
        const data = JSON.parse(line) as { id?: number; username?: string }
        const id = file.type === "users" ? data.username : data.id
        if (id === undefined) throw new Error(`${file.name}: a line without its key`)
        loader.insert(file.type, String(id), JSON.stringify(data))
        rows++
      }
      const digest = seen.hash.digest()
      const sha256 = digest.toString("hex")
      // sha256 in hex (base64 accepted too)
      if (rows !== file.rows || seen.bytes !== file.bytes || (sha256 !== file.sha256.toLowerCase() && digest.toString("base64") !== file.sha256)) {
        throw new Error(
          `${file.name} does not match the manifest: ${rows} rows, ${seen.bytes} bytes, sha256 ${sha256} ` +
            `(manifest: ${file.rows}, ${file.bytes}, ${file.sha256})`
        )
      }
      log(`snapshot: ${file.type} ${rows} rows (${file.name}, ${seen.bytes} bytes, sha256 checked)`)
    }
    loader.commit(manifest.cursor)
  } catch (error) {
    loader.rollback()
    throw error
  }
}
