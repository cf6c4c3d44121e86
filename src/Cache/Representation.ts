import { createHash } from "node:crypto"
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib"

/** Bodies up to this size go out uncompressed: the savings would not pay for the work. */
export const COMPRESS_ABOVE_BYTES = 1024

export type ContentCoding = "br" | "gzip" | "identity"

/**
 * The final bytes of one 200 response, with its strong validator and the compressed forms made
 * so far. The response cache keeps these, so a hit does no hashing and no compression.
 */
export interface Representation {
  readonly contentType: string
  readonly body: Uint8Array
  /** Hash of the identity body; each coding's ETag is derived from it. */
  readonly hash: string
  readonly coded: { br?: Uint8Array; gzip?: Uint8Array }
  /** A list page's `meta.next_cursor` when there is a next page: every answer of it links there. */
  readonly nextCursor?: string | undefined
}

export const makeRepresentation = (body: Uint8Array, contentType: string, nextCursor?: string): Representation => ({
  contentType,
  body,
  hash: createHash("sha256").update(body).digest("base64url").slice(0, 32),
  coded: {},
  nextCursor
})

/** A strong ETag per content coding: the same bytes under another coding are other bytes. */
export const etagOf = (representation: Representation, coding: ContentCoding) =>
  coding === "identity" ? `"${representation.hash}"` : `"${representation.hash}-${coding}"`

/** The coding to send: br, else gzip, when the client accepts it and the body is worth it. */
export const chooseCoding = (acceptEncoding: string | undefined, size: number): ContentCoding => {
  if (acceptEncoding === undefined || size <= COMPRESS_ABOVE_BYTES) return "identity"
  const accepted = new Set<string>()
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name = "", ...params] = part.trim().split(";")
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined)
    if (q === undefined || Number(q) > 0) accepted.add(name.trim())
  }
  if (accepted.has("br")) return "br"
  if (accepted.has("gzip") || accepted.has("x-gzip")) return "gzip"
  return "identity"
}

/** The body under `coding`, compressed once and kept; `added` is the bytes newly kept. */
export const encodeBody = (
  representation: Representation,
  coding: ContentCoding
): { readonly body: Uint8Array; readonly added: number } => {
  if (coding === "identity") return { body: representation.body, added: 0 }
  const existing = representation.coded[coding]
  if (existing !== undefined) return { body: existing, added: 0 }
  const body = coding === "br"
    ? new Uint8Array(brotliCompressSync(representation.body, {
      // quality 5 compresses JSON nearly as well as 11 at a small fraction of the time
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: representation.body.length }
    }))
    : new Uint8Array(gzipSync(representation.body, { level: 6 }))
  representation.coded[coding] = body
  return { body, added: body.length }
}

/**
 * How If-None-Match (RFC 9110 13.1.2, weak comparison) meets these bytes: `"tag"` when it lists one
 * of their validators (any coding), `"any"` for `*`, which every current representation meets,
 * undefined when it does not match. Only a `"tag"` match was earned by holding the bytes.
 */
export const matchIfNoneMatch = (header: string | undefined, representation: Representation): "tag" | "any" | undefined => {
  if (header === undefined) return undefined
  if (header.trim() === "*") return "any"
  const named = header.split(",").some((tag) => {
    const opaque = tag.trim().replace(/^W\//, "").replace(/^"|"$/g, "")
    return opaque === representation.hash || opaque === `${representation.hash}-gzip` || opaque === `${representation.hash}-br`
  })
  return named ? "tag" : undefined
}
