// runs alone: it drives wrk against servers, which a neighbour's load would starve
import { describe, expect } from "bun:test"
import { testWhen } from "./support/skips.js"
import { statSync } from "node:fs"
import { resolve } from "node:path"

/**
 * `bun run bench --smoke`: the whole benchmark harness on a 2,000-song catalogue in its own
 * PostgreSQL database, one short round, so the harness cannot rot. Needs a PostgreSQL server
 * (TEST_DATABASE_URL) and wrk; the numbers are not judged here.
 */
const ROOT = resolve(import.meta.dir, "..")
const RESULTS = resolve(ROOT, "test/bench/RESULTS.md")
const serverUrl = process.env.TEST_DATABASE_URL
const hasWrk = Bun.spawnSync(["sh", "-c", "command -v wrk"]).exitCode === 0
const skipReason = !serverUrl
  ? "TEST_DATABASE_URL is not set (the bench smoke needs a PostgreSQL server)"
  : !hasWrk
  ? "wrk is not installed (apt-get install -y wrk; .ci/run installs it)"
  : undefined
if (skipReason !== undefined) console.warn(`bench smoke skipped: ${skipReason}`)

const mtimeOf = (path: string) => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return undefined
  }
}

describe("bench smoke", () => {
  testWhen(skipReason === undefined, skipReason ?? "")(
    "bun run bench --smoke drives the service and the three baselines through every scenario with byte-equal answers",
    async () => {
      const resultsBefore = mtimeOf(RESULTS)
      const child = Bun.spawn(["bun", "test/bench/run.ts", "--smoke"], {
        cwd: ROOT,
        env: { ...process.env, TEST_DATABASE_URL: serverUrl },
        stdout: "pipe",
        stderr: "pipe"
      })
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited
      ])
      if (code !== 0) console.error(stderr)
      expect(code).toBe(0)
      expect(stderr).toMatch(/byte-equal: \d+ paths x 3 baselines/)
      for (const scenario of ["detail-uniform", "detail-zipf", "list-first", "list-deep", "search", "search-1", "flood-429"]) {
        expect(stdout).toContain(`| ${scenario} | service`)
      }
      for (const baseline of ["Bun.SQL", "pg prepared", "HttpApi floor"]) {
        expect(stdout).toContain(`| detail-uniform | ${baseline} |`)
        expect(stdout).toContain(`| list-deep | ${baseline} |`)
      }
      // every figure of the service rows is a number
      const serviceRow = stdout.split("\n").find((line) => line.startsWith("| detail-uniform | service |"))
      expect(serviceRow?.split("|").slice(3, 9).every((cell) => /^\s*\d+(\.\d+)?\s*$/.test(cell))).toBe(true)
      expect(stdout).toContain("Targets (issues 7 and 14):")
      expect(stdout).toMatch(/\| list-first \| \d+\.\d+x \| \d+\.\d+x \| \d+ \| \d+\.\d+x \|/)
      // five targets of issue 7, the p99 one for each service scenario under load (all but search-1)
      // and five of issue 14 (search vs detail; both list pages vs both hand-written baselines)
      for (const scenario of ["detail-uniform", "detail-zipf", "list-first", "list-deep", "search", "flood-429"]) {
        expect(stdout).toMatch(new RegExp(`\\| p99 at \\d+ connections: ${scenario}[ |]`))
      }
      // and two of the deployed shape (Redis buckets, OTLP at 0.1) against the plain Zipf figure and Bun.SQL
      expect(stdout.match(/\| (yes|\*\*no\*\*) \|/g)?.length).toBe(5 + 6 + 5 + 2)
      expect(stdout).toContain("| detail-zipf | service (Redis, OTLP 0.1) |")
      expect(stderr).toMatch(/collector: [1-9]\d* spans, [1-9]\d* metric exports/)
      // a smoke run never overwrites the recorded results
      expect(mtimeOf(RESULTS)).toBe(resultsBefore)
      // and drops its own database
      const { default: pg } = await import("pg")
      const admin = new pg.Client({ connectionString: serverUrl })
      await admin.connect()
      const left = await admin.query("SELECT datname FROM pg_database WHERE datname = $1", [`catalogue_bench_smoke_${child.pid}`])
      await admin.end()
      expect(left.rowCount).toBe(0)
    },
    180_000
  )
})
