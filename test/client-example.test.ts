import { beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { sharedServer, type TestServer } from "./support/server.js"

/** The README's typed clients: shown as they are in examples/, compiled by `bun run check`, run here. */
const ROOT = resolve(import.meta.dir, "..")
const EXAMPLES = ["examples/effect-client.ts", "examples/openapi-fetch-client.ts"]

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

describe("README client examples", () => {
  for (const example of EXAMPLES) {
    test(`${example} is in the README word for word`, () => {
      const readme = readFileSync(resolve(ROOT, "README.md"), "utf8")
      expect(readme).toContain("```ts\n" + readFileSync(resolve(ROOT, example), "utf8") + "```")
    })

    test(`${example} runs against the service and prints the three most popular songs`, async () => {
      const child = Bun.spawn(["bun", resolve(ROOT, example)], {
        env: { ...process.env, CATALOGUE_URL: server.baseUrl },
        stdout: "pipe",
        stderr: "pipe"
      })
      const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
      expect({ code, err }).toEqual({ code: 0, err: "" })
      const lines = out.trim().split("\n")
      expect(lines).toHaveLength(3)
      for (const line of lines) expect(line).toMatch(/^.+ \(\d{4}-\d{2}-\d{2}\): \d+ credits$/)
    }, 30_000)
  }

  test("both clients print the same songs", async () => {
    const run = async (example: string) => {
      const child = Bun.spawn(["bun", resolve(ROOT, example)], { env: { ...process.env, CATALOGUE_URL: server.baseUrl }, stdout: "pipe" })
      return new Response(child.stdout).text()
    }
    const [effect, fetched] = await Promise.all(EXAMPLES.map(run))
    expect(effect).toBe(fetched!)
  }, 30_000)
})

/**
 * The contract in a browser: `bun build examples/effect-client.ts --target=browser --minify`.
 * Before the contract stood apart it was 327 kB (Effect 218 kB, the project 109 kB, SQL text
 * included); Effect's HttpApiClient alone with a one-endpoint API is ~186 kB, so the bound is on
 * the whole (Effect's floor plus the contract) and, apart, on the project's own bytes: at most a
 * third of its 109 kB.
 */
describe("the typed client in a browser bundle", () => {
  const SQL = ["SELECT ", "FROM public_", " JOIN ", "WHERE ", "ORDER BY", "jsonb_build_object", "json_build_object", "to_json(",
    "coalesce(", "asset_url(", "iso_date(", "public_songs"]
  let bundle = ""
  let inputs: Record<string, { readonly bytesInOutput: number }> = {}

  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), "client-bundle-"))
    try {
      const child = Bun.spawn(
        ["bun", "build", "examples/effect-client.ts", "--target=browser", "--minify", `--outdir=${out}`, `--metafile=${join(out, "meta.json")}`],
        { cwd: ROOT, stdout: "pipe", stderr: "pipe" }
      )
      const [err, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
      expect({ code, err }).toEqual({ code: 0, err: "" })
      bundle = readFileSync(join(out, "effect-client.js"), "utf8")
      const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8"))
      inputs = meta.outputs["./effect-client.js"].inputs
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 60_000)

  test("holds no SQL", () => {
    expect(bundle.length).toBeGreaterThan(100_000)
    expect(SQL.filter((fragment) => bundle.includes(fragment))).toEqual([])
  })

  test("holds the contract and Effect only: no server module, no OpenAPI transform, no examples", () => {
    const own = Object.keys(inputs).filter((path) => !path.startsWith("node_modules/"))
    const contract = (path: string) =>
      path === "examples/effect-client.ts" || path.startsWith("src/Contract/") || /^src\/[A-Za-z]+\/Api\.ts$/.test(path)
    expect(own.filter((path) => !contract(path))).toEqual([])
    expect(own).toContain("src/Contract/Api.ts")
  })

  test("is at most 240 kB, the project's own part at most a third of its 109 kB before", () => {
    const ownBytes = Object.entries(inputs)
      .filter(([path]) => !path.startsWith("node_modules/"))
      .reduce((sum, [, input]) => sum + input.bytesInOutput, 0)
    expect(bundle.length).toBeLessThanOrEqual(240_000)
    expect(ownBytes).toBeLessThanOrEqual(Math.floor(109_141 / 3))
  })
})
