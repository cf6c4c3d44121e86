import { expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"

const SRC = resolve(import.meta.dir, "../src")
const MAX_LINES = 600

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

test(`no source file is over ${MAX_LINES} lines (one file, one job)`, () => {
  const long = sourceFiles(SRC)
    .map((file) => [relative(SRC, file), readFileSync(file, "utf8").split("\n").length] as const)
    .filter(([, lines]) => lines > MAX_LINES)
  expect(long).toEqual([])
})
