import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"

/**
 * Comments and documents that cite a file of the repository (`src/Http/Edge.ts`, a migration)
 * must cite one that exists: a reader follows them.
 */
const ROOT = resolve(import.meta.dir, "..")
const SCANNED = ["src", "sql", "docs", "test", "examples", "mirror", "README.md"]
// generated files (`bun run check` writes examples/catalogue-api.d.ts) are cited before they exist
const GENERATED = new Set(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n").map((line) => line.trim()))
const CITED = /\b(?:src|sql|test|docs|examples|mirror)\/[A-Za-z0-9_./-]+\.(?:ts|sql|md|json)\b/g

const filesUnder = (path: string): Array<string> => {
  const full = join(ROOT, path)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [path]
  return readdirSync(full).flatMap((name) =>
    name === "node_modules" || name.startsWith(".") ? [] : filesUnder(join(path, name))
  )
}

describe("cited files", () => {
  test("every repository path named in a comment or document exists", () => {
    const missing: Array<string> = []
    for (const file of SCANNED.flatMap(filesUnder).filter((f) => /\.(ts|sql|md)$/.test(f))) {
      for (const cited of readFileSync(join(ROOT, file), "utf8").match(CITED) ?? []) {
        if (!/NNNN/.test(cited) && !GENERATED.has(cited) && !existsSync(join(ROOT, cited))) missing.push(`${file}: ${cited}`)
      }
    }
    expect(missing).toEqual([])
  })
})
