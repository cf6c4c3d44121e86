import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const SRC = resolve(import.meta.dir, "../src")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

/** Each module's imports of other modules of src/, as paths relative to src/. */
const graph = new Map(
  sourceFiles(SRC).map((file) => [
    relative(SRC, file),
    [...readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)].map((match) =>
      relative(SRC, resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts")))
    )
  ])
)

describe("imports point one way, from the outside in", () => {
  test("no module imports itself back through others (no cycle)", () => {
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const stack: Array<string> = []
    const visit = (module: string) => {
      state.set(module, "open")
      stack.push(module)
      for (const next of graph.get(module) ?? []) {
        if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "))
        else if (!state.has(next)) visit(next)
      }
      stack.pop()
      state.set(module, "done")
    }
    for (const module of graph.keys()) if (!state.has(module)) visit(module)
    expect(cycles).toEqual([])
  })

  test("nothing inside the HTTP pipeline's reach imports the pipeline, the server or the composition", () => {
    // entry points (main.ts, migrate.ts, snapshot.ts) and the composition (App.ts) stand outside everything
  const outer = (target: string) => target.startsWith("Http/") || ["App.ts", "main.ts", "migrate.ts", "snapshot.ts"].includes(target)
    const inward = [...graph].filter(([module]) => !outer(module))
    const reachingOut = inward.flatMap(([module, targets]) => targets.filter(outer).map((target) => `${module} -> ${target}`))
    expect(reachingOut).toEqual([])
  })
})
