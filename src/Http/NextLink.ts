import { decodeQueryPart } from "./Routes.js"

/** Characters a URI reference holds as they are (RFC 3986: unreserved, sub-delims, `:@/?` and escapes). */
const UNSAFE = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu
const ENCODER = new TextEncoder()

/** Percent-encodes what a URI may not hold as itself (a lone surrogate as U+FFFD), so the header is ASCII. */
const escapeUnsafe = (text: string) =>
  text.replace(UNSAFE, (char) => Array.from(ENCODER.encode(char), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""))

/**
 * The RFC 8288 `Link` to a list's next page: the request's own path and query (`target`), its
 * parameters as sent but for `offset` and `cursor`, then `cursor` the next one. A relative
 * reference: the service does not know the origin clients reach it by (docs/api.md, Pagination).
 */
export const nextPageLink = (target: string, cursor: string) => {
  const start = target.indexOf("?")
  const path = start === -1 ? target : target.slice(0, start)
  const kept = start === -1 ? [] : target.slice(start + 1).split("&").filter((pair) => {
    if (pair === "") return false
    const equals = pair.indexOf("=")
    const name = decodeQueryPart(equals === -1 ? pair : pair.slice(0, equals))
    return name !== "cursor" && name !== "offset"
  })
  return `<${escapeUnsafe(`${path}?${[...kept, `cursor=${encodeURIComponent(cursor)}`].join("&")}`)}>; rel="next"`
}
