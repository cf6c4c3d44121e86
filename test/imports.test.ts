import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const SRC = resolve(import.meta.dir, "../src")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const specifiers = (file: string) => [...readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)].map((match) => match[1]!)

/** Each module's imports of other modules of src/, as paths relative to src/. */
const graph = new Map(
  sourceFiles(SRC).map((file) => [
    relative(SRC, file),
    specifiers(file).filter((specifier) => specifier.startsWith(".")).map((specifier) =>
      relative(SRC, resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
    )
  ])
)

/** Each module's imports of packages (`effect/Schema`, `node:fs`, `pg`). */
const packages = new Map(
  sourceFiles(SRC).map((file) => [relative(SRC, file), specifiers(file).filter((specifier) => !specifier.startsWith("."))])
)

/** What clients import: src/Contract and each group's endpoints (`<Group>/Api.ts`). */
const isContract = (module: string) => module.startsWith("Contract/") || /^[A-Za-z]+\/Api\.ts$/.test(module)
/** The SQL that builds each response shape. */
const isShape = (module: string) => module.startsWith("Shapes/")
/** The query machinery: pages, sorts, batches, cursors. */
const isQuery = (module: string) => module.startsWith("Queries/")
/** The packages the contract may use: Schema and the HttpApi declarations, nothing of SQL, servers or Node. */
const CONTRACT_PACKAGES = /^effect(\/(Schema|SchemaGetter|SchemaAST|Context|http-api\/(HttpApi|HttpApiEndpoint|HttpApiGroup|HttpApiMiddleware|HttpApiSchema|HttpApiSecurity|OpenApi)))?$/

const importsWhere = (from: (module: string) => boolean, wrong: (target: string) => boolean) =>
  [...graph].filter(([module]) => from(module)).flatMap(([module, targets]) =>
    targets.filter(wrong).map((target) => `${module} -> ${target}`)
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

  test("the contract imports only the contract, Schema and the HttpApi declarations: no SQL, OpenAPI transform or server", () => {
    expect(importsWhere(isContract, (target) => !isContract(target))).toEqual([])
    const contractPackages = [...packages].filter(([module]) => isContract(module))
      .flatMap(([module, names]) => names.filter((name) => !CONTRACT_PACKAGES.test(name)).map((name) => `${module} -> ${name}`))
    expect(contractPackages).toEqual([])
    expect([...graph.keys()].filter(isContract).length).toBeGreaterThan(20)
  })

  test("the shapes' SQL imports only the contract and other shapes; the query machinery never the groups or the edge", () => {
    expect(importsWhere(isShape, (target) => !isShape(target) && !isContract(target))).toEqual([])
    const group = (target: string) => /^[A-Za-z]+\/(Http|Repo)\.ts$/.test(target) && !target.startsWith("Database/")
    expect(importsWhere(isQuery, (target) => group(target) || target.startsWith("Http/"))).toEqual([])
  })
})

