/** Other spellings of every route's path: the edge's tests (test/edge-spelling.test.ts, test/one-matcher.test.ts). */
import { FIXTURE_PATH_VALUES } from "./fixture.js"

/** A public or hidden row of the fixture for every path parameter. */
const FIXTURE_VALUES: Record<string, string> = { ...FIXTURE_PATH_VALUES, file: "songs-0123456789abcdef.ndjson.gz" }

export const concrete = (template: string) =>
  template.replace(/:(\w+)/g, (_, name: string) => {
    const value = FIXTURE_VALUES[name]
    if (value === undefined) throw new Error(`no fixture value for :${name} in ${template}`)
    return value
  })

/** Index of the first letter of the path's literal text after `/v1/` (or of `/docs`). */
const firstLetterAt = (path: string) => path.search(/[a-z]/)

/**
 * Other spellings of one path: each names no endpoint (not_found), or, where Bun resolves it
 * before the service sees it (dot segments), the same endpoint under the same rules.
 */
export const spellingsOf = (path: string): ReadonlyArray<{ readonly name: string; readonly path: string; readonly same: boolean }> => {
  const at = firstLetterAt(path)
  const letter = path[at]!
  const segments = path.split("/")
  const lastSlash = path.lastIndexOf("/")
  return [
    { name: "upper case", path: path.toUpperCase(), same: false },
    { name: "one capital", path: path.slice(0, at) + letter.toUpperCase() + path.slice(at + 1), same: false },
    { name: "doubled slash", path: path.replace("/", "//"), same: false },
    { name: "inner doubled slash", path: segments.length > 2 ? path.slice(0, lastSlash) + "/" + path.slice(lastSlash) : path + "//", same: false },
    { name: "escaped letter", path: path.slice(0, at) + `%${letter.charCodeAt(0).toString(16)}` + path.slice(at + 1), same: false },
    { name: "escaped slash", path: segments.length > 2 ? path.slice(0, lastSlash) + "%2F" + path.slice(lastSlash + 1) : path + "%2F", same: false },
    { name: "trailing slash", path: path + "/", same: false },
    // the platform's router ends a path at `;`: after a middle segment it would serve the prefix
    { name: "semicolon inside", path: lastSlash > 0 ? path.slice(0, lastSlash) + ";x" + path.slice(lastSlash) : path.slice(0, 2) + ";x" + path.slice(2), same: false },
    { name: "semicolon at the end", path: path + ";x", same: false },
    { name: "dot segment", path: path.slice(0, lastSlash) + "/." + path.slice(lastSlash), same: true },
    { name: "dot-dot segment", path: "/v1/x/.." + path.slice(path.startsWith("/v1") ? 3 : 0), same: path.startsWith("/v1") }
  ]
}

