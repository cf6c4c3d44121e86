/**
 * `bun run mirror --from URL --into FILE [--follow] [--page-size N] [--concurrency N] [--poll-seconds N]`:
 * a copy of the public catalogue in a SQLite file, kept by the snapshot and the change feed
 * (docs/changes.md, "A mirror in a SQLite file"). A client of the public HTTP API only.
 */
import { DEFAULTS, runMirror } from "./Mirror.js"

const args = process.argv.slice(2)
const value = (name: string) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}
const number = (name: string, fallback: number, min: number, max: number) => {
  const text = value(name)
  if (text === undefined) return fallback
  const parsed = Number(text)
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) fail(`${name} takes an integer from ${min} to ${max}`)
  return parsed
}
function fail(message: string): never {
  console.error(`mirror: ${message}`)
  console.error("usage: bun run mirror --from URL --into FILE [--follow] [--page-size 1-1000] [--concurrency 1-16] [--poll-seconds N]")
  process.exit(2)
}

const from = value("--from")
const into = value("--into")
if (from === undefined || !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(from)) fail("--from takes the service's base URL (http://... or https://...)")
if (into === undefined) fail("--into takes the SQLite file to keep the mirror in")

try {
  await runMirror({
    from: from.replace(/\/+$/, ""),
    into,
    follow: args.includes("--follow"),
    pageSize: number("--page-size", DEFAULTS.pageSize, 1, 1000),
    concurrency: number("--concurrency", DEFAULTS.concurrency, 1, 16),
    pollMs: number("--poll-seconds", DEFAULTS.pollMs / 1000, 1, 3600) * 1000,
    log: (line) => console.log(`${new Date().toISOString()} ${line}`)
  })
} catch (error) {
  console.error(`mirror: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
