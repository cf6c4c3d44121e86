import { beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
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
