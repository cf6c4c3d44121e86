import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dropLeftovers, testServerUrl } from "./support/database.js"
import { prepareTemplates, TEMPLATES_ENV } from "./support/template.js"

/**
 * `bun run test`: prepares the template databases once for the run (test/support/template.ts),
 * runs `bun test` with them (the files in parallel, then those that run alone; the files named
 * on the command line, if any, in one `bun test`), and closes with the time each file took (slowest first), the slow
 * tests with their reasons (test/support/slow.ts), the skipped tests with theirs
 * (test/support/skips.ts), then the line CI reads: `tests: N passed, M failed, K skipped`.
 * Arguments are passed on to `bun test` (a file filter, -t, ...).
 */
// Bun's own limit on a request head, as `bun run start` sets it (docs/edge.md): test servers run in this process.
// The time limit of every test and hook: Bun's default is 5 s and it does not read one from bunfig.toml;
// tests that start servers or write thousands of rows need more on a loaded machine.
const TIMEOUT_MS = 30_000
/** How many of the slowest files the closing report names. */
const SLOWEST_FILES = 15

const serverUrl = await testServerUrl()
const prepared = await prepareTemplates(serverUrl)
console.log(`templates ${prepared.made ? "made" : "reused"} in ${(prepared.ms / 1000).toFixed(1)} s: ${prepared.templates.fixture}`)

/**
 * A file whose tests compare times or memory against a baseline taken in the same file says so on
 * a line of its own, `// runs alone: why`; it runs after the others, alone on the machine, so that
 * a neighbour's load does not move one side of its comparison. The others run in parallel
 * (`--parallel`, one worker a core), each in its own process and database.
 */
const ALONE = /^\/\/ runs alone: /m
const chosen = process.argv.slice(2)
const files = [...new Bun.Glob("test/**/*.test.ts").scanSync(".")].sort()
const alone = files.filter((file) => ALONE.test(readFileSync(file, "utf8")))
const phases: ReadonlyArray<ReadonlyArray<string>> = chosen.length > 0
  ? [chosen]
  : [["--parallel", ...files.filter((file) => !alone.includes(file)).map((file) => `./${file}`)], alone.map((file) => `./${file}`)]

const timingsDir = mkdtempSync(join(tmpdir(), "catalogue-timings-"))
let output = ""
let exitCode = 0
const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
  const decoder = new TextDecoder()
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true })
    output += text
    sink.write(text)
  }
}
const timingsFiles = phases.map((_, phase) => join(timingsDir, `timings-${phase}.json`))
for (const [phase, args] of phases.entries()) {
  if (args.length === 0) continue
  const child = Bun.spawn(
    ["bun", "--max-http-header-size=131072", "test", `--timeout=${TIMEOUT_MS}`, `--timings=${timingsFiles[phase]}`, "--update-timings", ...args],
    {
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...process.env,
        [TEMPLATES_ENV]: JSON.stringify(prepared.templates),
        ...(serverUrl !== undefined && !process.env.TEST_DATABASE_URL ? { TEST_CONTAINER_URL: serverUrl } : {})
      }
    }
  )
  await Promise.all([pump(child.stdout, process.stdout), pump(child.stderr, process.stderr)])
  exitCode = Math.max(exitCode, await child.exited)
}
// what the test processes left behind (Bun runs no exit handlers after `bun test`)
await dropLeftovers(serverUrl)

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(7)} s`
const fileTimes = timingsFiles.flatMap((file) => {
  try {
    return Object.entries((JSON.parse(readFileSync(file, "utf8")) as { files: Record<string, number> }).files)
  } catch {
    return []
  }
}).sort(([, a], [, b]) => b - a)
rmSync(timingsDir, { recursive: true, force: true })
if (fileTimes.length > 0) {
  const total = fileTimes.reduce((sum, [, ms]) => sum + ms, 0)
  console.log(`\nslowest files (${fileTimes.length} files, ${seconds(total).trim()} in all):`)
  for (const [file, ms] of fileTimes.slice(0, SLOWEST_FILES)) console.log(`${seconds(ms)}  ${file}`)
}

const lines = [...new Set(output.split("\n"))]
const slow = lines.flatMap((line) => {
  const match = /^\((?:pass|fail)\) (.* \(slow: .*\)) \[([\d.]+)(ms|s)\]$/.exec(line)
  return match === null ? [] : [{ name: match[1]!, ms: Number(match[2]) * (match[3] === "s" ? 1000 : 1) }]
})
if (slow.length > 0) {
  console.log(`\nslow tests (test/support/slow.ts):`)
  for (const { name, ms } of slow.sort((a, b) => b.ms - a.ms)) console.log(`${seconds(ms)}  ${name}`)
}

const count = (word: string) =>
  [...output.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "gm"))].reduce((sum, match) => sum + Number(match[1]), 0)
const passed = count("pass")
const failed = count("fail") + (exitCode !== 0 && count("fail") === 0 ? 1 : 0)
const skipped = count("skip")
const skips = lines.filter((line) => line.startsWith("(skip) "))
if (skips.length > 0) console.log("")
for (const line of skips) console.log(line)
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(exitCode === 0 && passed > 0 ? 0 : 1)
