/**
 * `bun run lint:openapi`: Redocly's `recommended` rules over the document the service serves at
 * /v1/openapi.json (the same OpenApi.fromApi(Api) that src/App.ts publishes; test/contract.test.ts
 * checks that they are equal). Passes only with 0 errors and 0 warnings.
 */
import * as OpenApi from "effect/http-api/OpenApi"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Api } from "../../src/Api.js"

const directory = mkdtempSync(join(tmpdir(), "openapi-lint-"))
const file = join(directory, "openapi.json")
writeFileSync(file, JSON.stringify(OpenApi.fromApi(Api), null, 2))

const redocly = resolve(import.meta.dir, "../../node_modules/.bin/redocly")
const run = Bun.spawnSync([redocly, "lint", "--extends", "recommended", "--format", "json", file], {
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  stdout: "pipe",
  stderr: "pipe"
})
rmSync(directory, { recursive: true, force: true })

const output = run.stdout.toString()
let report: { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }> }
try {
  report = JSON.parse(output.slice(output.indexOf("{")))
} catch {
  console.error(output, run.stderr.toString())
  throw new Error("redocly lint did not produce a report")
}
for (const problem of report.problems) {
  console.error(`${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ""})`)
}
console.log(`openapi lint: ${report.totals.errors} errors, ${report.totals.warnings} warnings`)
process.exit(report.totals.errors + report.totals.warnings === 0 ? 0 : 1)
