/**
 * Compares the public answers of two running services over the same catalogue, byte for byte:
 *
 *   bun test/schema/answers.ts <first base url> <second base url> <database url to draw paths from>
 *
 * The paths are the bench sweep's (test/bench/sweep.ts: every endpoint family, popular and rare
 * ids, every sort, filters, deep offsets), drawn from the database given. Each is asked of both
 * services; status, content type and body must be equal. With test/schema/compare.ts, the check
 * that a fold of the schema (docs/data-model.md) changed no answer: run the service before the
 * fold and after it, each on its own database seeded alike (`bun run seed` with the same
 * --songs, --seed and --today).
 */
import { sweepPaths } from "../bench/sweep.js"

const [first, second, databaseUrl] = process.argv.slice(2)
if (first === undefined || second === undefined || databaseUrl === undefined) {
  console.error("usage: bun test/schema/answers.ts <first base url> <second base url> <database url>")
  process.exit(2)
}

const answer = async (baseUrl: string, path: string) => {
  const response = await fetch(`${baseUrl}${path}`)
  const body = await response.text()
  return `${response.status} ${response.headers.get("content-type")}\n${body}`
}

let asked = 0
const differences: Array<string> = []
for (const family of (await sweepPaths(databaseUrl)).families) {
  for (const path of new Set(family.paths)) {
    asked += 1
    const [a, b] = [await answer(first, path), await answer(second, path)]
    if (a !== b) differences.push(`${family.name} ${path}\n  first:  ${a.slice(0, 300)}\n  second: ${b.slice(0, 300)}`)
  }
}
for (const line of differences) console.log(line)
console.log(`${asked} paths asked of both, ${differences.length} answers differ`)
process.exit(differences.length === 0 ? 0 : 1)
