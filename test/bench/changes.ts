export {}

/**
 * Cost of /v1/changes: p50/p95 of a page of 1,000 changes (from the start, and from a cursor deep
 * in the feed) and of an empty poll (a caught-up cursor). Usage: bun test/bench/changes.ts <baseUrl> [rounds]
 */
const baseUrl = process.argv[2] ?? "http://127.0.0.1:3000"
const rounds = Number(process.argv[3] ?? 30)

const time = async (path: string) => {
  const start = performance.now()
  const response = await fetch(baseUrl + path)
  const body = (await response.json()) as { data: Array<unknown>; meta: { next_cursor: string } }
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
  return { ms: performance.now() - start, body }
}

const percentiles = async (label: string, path: string) => {
  const samples: Array<number> = []
  let entries = 0
  for (let i = 0; i < rounds; i++) {
    const { ms, body } = await time(path)
    samples.push(ms)
    entries = body.data.length
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!.toFixed(1)
  console.log(`${label}: ${entries} entries, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (${rounds} requests)`)
}

await percentiles("first page, limit=1000", "/v1/changes?limit=1000")
// a cursor deep in the feed: follow 200 pages of 1,000
let cursor = ""
for (let i = 0; i < 200; i++) cursor = (await time(`/v1/changes?limit=1000${cursor ? `&since=${cursor}` : ""}`)).body.meta.next_cursor
await percentiles("page 201, limit=1000", `/v1/changes?limit=1000&since=${cursor}`)
// caught up: follow until the cursor comes back unchanged
for (;;) {
  const next = (await time(`/v1/changes?limit=1000&since=${cursor}`)).body.meta.next_cursor
  if (next === cursor) break
  cursor = next
}
await percentiles("empty poll (caught up)", `/v1/changes?limit=1000&since=${cursor}`)
