export {}

/**
 * Runs `bun test` and closes with the line CI reads: `tests: N passed, M failed, K skipped`, the
 * skipped tests listed above it with their reasons (test/support/skips.ts).
 * Arguments are passed on to `bun test` (a file filter, -t, ...).
 */
// Bun's own limit on a request head, as `bun run start` sets it (docs/edge.md): test servers run in this process.
// The time limit of every test and hook: Bun's default is 5 s and it does not read one from bunfig.toml;
// tests that start servers or write thousands of rows need more on a loaded machine.
const TIMEOUT_MS = 30_000
const child = Bun.spawn(["bun", "--max-http-header-size=131072", "test", `--timeout=${TIMEOUT_MS}`, ...process.argv.slice(2)], {
  stdout: "pipe",
  stderr: "pipe",
  env: process.env
})

let output = ""
const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
  const decoder = new TextDecoder()
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true })
    output += text
    sink.write(text)
  }
}
await Promise.all([pump(child.stdout, process.stdout), pump(child.stderr, process.stderr)])
const exitCode = await child.exited

const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "m").exec(output)?.[1] ?? 0)
const passed = count("pass")
const failed = count("fail") + (exitCode !== 0 && count("fail") === 0 ? 1 : 0)
const skipped = count("skip")
for (const line of new Set(output.split("\n").filter((line) => line.startsWith("(skip) ")))) console.log(line)
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(exitCode === 0 && passed > 0 ? 0 : 1)
