/**
 * Latency of /v1/search on a seeded catalogue (docs/search.md).
 *
 *   DATABASE_URL=postgres://.../discover_bench PORT=3904 RATE_LIMIT_CAPACITY=100000000 RATE_LIMIT_MAX_IN_FLIGHT=1000000 CACHE_TTL_SECONDS=0 bun run start
 *   DATABASE_URL=postgres://.../discover_bench bun test/search.bench.ts http://127.0.0.1:3904 [rounds] [connections]
 *
 * The query mix is drawn from the catalogue itself (deterministically): whole titles and names,
 * prefixes, single words, names with their honorific, names typed without diacritics, one-typo
 * names of 8+ letters, and a few one- and two-letter queries. Every query asks all seven types.
 */
import pg from "pg"

const baseUrl = process.argv[2] ?? "http://127.0.0.1:3904"
const rounds = Number(process.argv[3] ?? 3)
const connections = Number(process.argv[4] ?? 1)

const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
await client.connect()
const column = async (text: string) => (await client.query<{ v: string }>(text)).rows.map((row) => row.v)
const titles = await column("SELECT title AS v FROM public_songs ORDER BY id LIMIT 60 OFFSET 5000")
const names = await column("SELECT name AS v FROM public_artists ORDER BY id LIMIT 40 OFFSET 300")
const honorific = await column(
  "SELECT prefix_title || ' ' || name AS v FROM public_artists WHERE prefix_title IS NOT NULL ORDER BY id LIMIT 20"
)
const diacritics = await column("SELECT unaccent(name) AS v FROM public_artists WHERE name <> unaccent(name) ORDER BY id LIMIT 10")
const albums = await column("SELECT title AS v FROM public_albums ORDER BY id LIMIT 20 OFFSET 100")
await client.end()

const typo = (text: string) => {
  const at = Math.floor(text.length / 2)
  return text.slice(0, at) + (text[at] === "a" ? "e" : "a") + text.slice(at + 1)
}
const queries = [
  ...titles,
  ...titles.slice(0, 20).map((title) => title.slice(0, 4)),
  ...titles.slice(20, 40).map((title) => title.split(" ").at(-1) ?? title),
  ...names,
  ...names.filter((name) => name.replace(/\s/g, "").length >= 8).slice(0, 20).map(typo),
  ...honorific,
  ...diacritics,
  ...albums,
  "a", "s", "ku", "ma", "cinta", "lagu", "rindu", "love"
]

const timings: Array<number> = []
const slowest = new Map<string, number>()
let next = 0
const work = queries.flatMap((query) => Array.from({ length: rounds }, () => query))
const worker = async () => {
  while (next < work.length) {
    const query = work[next++]!
    const started = performance.now()
    const response = await fetch(`${baseUrl}/v1/search?q=${encodeURIComponent(query)}`)
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`${query}: ${response.status}`)
    const elapsed = performance.now() - started
    timings.push(elapsed)
    slowest.set(query, Math.max(slowest.get(query) ?? 0, elapsed))
  }
}
// warm-up: plans and caches
for (const query of queries.slice(0, 30)) await (await fetch(`${baseUrl}/v1/search?q=${encodeURIComponent(query)}`)).arrayBuffer()
await Promise.all(Array.from({ length: connections }, worker))

timings.sort((a, b) => a - b)
const at = (p: number) => timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))]!.toFixed(1)
console.log(
  `search: ${timings.length} requests, ${queries.length} distinct queries, ${connections} connection(s): ` +
    `p50 ${at(50)} ms, p95 ${at(95)} ms, p99 ${at(99)} ms, max ${at(100)} ms`
)
console.log(
  "slowest:",
  [...slowest].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([query, ms]) => `${JSON.stringify(query)} ${ms.toFixed(0)} ms`).join(", ")
)
