/** The byte range (inclusive) asked, if one is. */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/**
 * A `Range` header read against a file of `size` bytes (RFC 9110, 14.2): one `bytes=` range gives its
 * bytes, clipped to the file; one that starts past the end is unsatisfiable. Anything else (absent,
 * another unit, several ranges, malformed) asks for the whole file: a server may ignore a range.
 */
export const byteRange = (header: string | undefined, size: number): ByteRange | "unsatisfiable" | undefined => {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined
  const [, first = "", last = ""] = match
  if (first === "" && last === "") return undefined
  if (first === "") {
    const suffix = Number(last)
    return suffix === 0 || size === 0 ? "unsatisfiable" : { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === "" ? size - 1 : Number(last)
  if (start >= size) return "unsatisfiable"
  return end < start ? undefined : { start, end: Math.min(end, size - 1) }
}

/** If-None-Match against this strong ETag (weak comparison, as RFC 9110 asks): true when the client has it. */
export const noneMatches = (header: string | undefined, etag: string) =>
  header !== undefined &&
  header.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })
