import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"

/**
 * Comments and documents that cite a file of the repository (`src/Http/Edge.ts`, a migration)
 * must cite one that exists, and a section of a document (`docs/edge.md, "Draining"`,
 * `docs/edge.md#draining`) one it has: a reader follows them.
 */
const ROOT = resolve(import.meta.dir, "..")
const SCANNED = ["src", "sql", "docs", "test", "examples", "mirror", "README.md"]
// generated files (`bun run check` writes examples/catalogue-api.d.ts) are cited before they exist
const GENERATED = new Set(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n").map((line) => line.trim()))
const PATH = String.raw`\b(?:src|sql|test|docs|examples|mirror)\/[A-Za-z0-9_./-]+`
const CITED = new RegExp(String.raw`${PATH}\.(?:ts|sql|md|json)\b`, "g")
/**
 * A document and its section: `#anchor`, or a quoted heading after a comma, a space or a
 * parenthesis, perhaps across a line break inside a comment.
 */
const CITED_SECTION = new RegExp(String.raw`(${PATH}\.md)(?:#([\w-]+)|(?:[,\s(]|\/\/|--|\*(?!\/))+"([^"\n]+)")`, "g")

const filesUnder = (path: string): Array<string> => {
  const full = join(ROOT, path)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [path]
  return readdirSync(full).flatMap((name) =>
    name === "node_modules" || name.startsWith(".") ? [] : filesUnder(join(path, name))
  )
}

const scanned = () => SCANNED.flatMap(filesUnder).filter((f) => /\.(ts|sql|md)$/.test(f))

/** A document's sections: its headings, and the bold lead of a paragraph or list item (`- **Health.**`). */
const sectionsOf = (document: string) =>
  [...readFileSync(join(ROOT, document), "utf8").matchAll(/^(?:#{1,6} +(.+?) *$|(?:- )?\*\*([^*\n]+)\*\*)/gm)]
    .map((m) => (m[1] ?? m[2])!)

/** GitHub's anchor of a heading. */
const anchorOf = (heading: string) => heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")

/** A heading cited by its first words: the rest, if any, starts with no letter or digit ("Snapshots (`/v1/snapshots`)"). */
const startsSection = (heading: string, cited: string) =>
  heading === cited || (heading.startsWith(cited) && /^[^\p{L}\p{N}]/u.test(heading.slice(cited.length)))

describe("cited files", () => {
  test("every repository path named in a comment or document exists", () => {
    const missing: Array<string> = []
    for (const file of scanned()) {
      for (const cited of readFileSync(join(ROOT, file), "utf8").match(CITED) ?? []) {
        if (!/NNNN/.test(cited) && !GENERATED.has(cited) && !existsSync(join(ROOT, cited))) missing.push(`${file}: ${cited}`)
      }
    }
    expect(missing).toEqual([])
  })

  test("every section of a document named in a comment or document is one of its headings", () => {
    const missing: Array<string> = []
    let cited = 0
    for (const file of scanned()) {
      for (const [, document, anchor, heading] of readFileSync(join(ROOT, file), "utf8").matchAll(CITED_SECTION)) {
        if (!existsSync(join(ROOT, document!))) continue
        cited++
        const sections = sectionsOf(document!)
        const found = anchor === undefined
          ? sections.some((section) => startsSection(section, heading!))
          : sections.some((section) => anchorOf(section) === anchor)
        if (!found) missing.push(`${file}: ${document} ${anchor === undefined ? `"${heading}"` : `#${anchor}`}`)
      }
    }
    expect(cited).toBeGreaterThan(50)
    expect(missing).toEqual([])
  })

  test("the sections check reads every form cited", () => {
    const forms = [
      'docs/edge.md, "Draining"',
      'docs/edge.md "Draining"',
      'docs/edge.md ("Draining")',
      'docs/edge.md\n// "Draining"',
      'docs/edge.md\n * "Draining"',
      "docs/edge.md#draining"
    ]
    expect(forms.map((form) => [...form.matchAll(CITED_SECTION)].map((m) => m[3] ?? m[2]))).toEqual(
      forms.map((form) => [form.endsWith("#draining") ? "draining" : "Draining"])
    )
    expect(startsSection("Snapshots (`/v1/snapshots`)", "Snapshots")).toBe(true)
    expect(startsSection("Snapshotsx", "Snapshots")).toBe(false)
    expect(anchorOf("Where the time goes")).toBe("where-the-time-goes")
    // a path inside a string literal, followed by other strings, cites no section
    expect([...'join(ROOT, "docs/api.md"), "utf8"'.matchAll(CITED_SECTION)]).toEqual([])
  })
})
