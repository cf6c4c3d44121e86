/**
 * Runs the relevance suite's queries against a service over HTTP, one request at a time, has the
 * judge (./relevanceJudge.ts) rank each answer and sums up per class: hit@1, hit@5, MRR and latency.
 */
import { type Answer, rankOf, readFacts } from "./relevanceJudge.js"
import { type Generated, QUERY_CLASSES, type Query, type Rows } from "./relevanceQueries.js"

/** What CI asks of every class (test/search-relevance.test.ts), and the issue of every class at 1M songs. */
export const RELEVANCE_FLOORS = { hitAt1: 0.95 } as const

/**
 * The suite CI runs (test/search-relevance.test.ts): a catalogue seeded as the demo is (src/Seed)
 * big enough that every class gets `minQueries` distinct queries (honorifics: ~4% of its artists).
 */
export const CI_RELEVANCE = { songs: 4000, targets: 160, seed: 1, minQueries: 30 } as const

/** Results asked per query. */
export const RESULT_LIMIT = 10

export interface ClassFigures {
  readonly name: string
  readonly example: string
  readonly n: number
  readonly skipped: number
  readonly skippedWhy: string
  readonly hitAt1: number
  /** queries whose first result was an accepted answer other than the target itself */
  readonly firstAnother: number
  readonly hitAt5: number
  readonly mrr: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
}

export const queryPath = (query: Query) =>
  `/v1/search?q=${encodeURIComponent(query.made.text)}&types=${query.type}&limit=${RESULT_LIMIT}`

const ask = async (baseUrl: string, query: Query): Promise<Answer> => {
  const started = performance.now()
  const response = await fetch(baseUrl + queryPath(query))
  const text = await response.text()
  const ms = performance.now() - started
  if (!response.ok) throw new Error(`${queryPath(query)}: ${response.status} ${text.slice(0, 200)}`)
  const section = (JSON.parse(text) as { data: Record<string, { items: ReadonlyArray<{ id: number }> }> }).data[query.type]
  return { query, ids: (section?.items ?? []).map((item) => item.id), ms }
}

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const targetId = (query: Query) => (query.type === "artists" ? query.target.artist?.id : query.target.songId)

interface Judged {
  readonly answer: Answer
  readonly rank: number
  readonly ms: number
}

const figuresOf = (name: string, example: string, judged: ReadonlyArray<Judged>, skipped: number, skippedWhy: string): ClassFigures => {
  const n = judged.length
  const share = (f: (rank: number) => number) => (n === 0 ? NaN : judged.reduce((sum, { rank }) => sum + f(rank), 0) / n)
  const ms = judged.map((j) => j.ms).sort((a, b) => a - b)
  return {
    name,
    example,
    n,
    skipped,
    skippedWhy,
    hitAt1: share((rank) => (rank === 1 ? 1 : 0)),
    firstAnother: judged.filter(({ answer, rank }) => rank === 1 && answer.ids[0] !== targetId(answer.query)).length,
    hitAt5: share((rank) => (rank >= 1 && rank <= 5 ? 1 : 0)),
    mrr: share((rank) => (rank >= 1 ? 1 / rank : 0)),
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    p99: percentile(ms, 99)
  }
}

export interface RelevanceRun {
  readonly classes: ReadonlyArray<ClassFigures>
  readonly all: ClassFigures
  /** the queries whose target was not first, per class (for reading a failure) */
  readonly misses: ReadonlyMap<string, ReadonlyArray<{ readonly query: string; readonly rank: number }>>
}

/**
 * Asks every query once (after one unmeasured pass when `warmUp`), judges the answers, and sums
 * up per class. `rows` reads the facts of what was found from the same catalogue.
 */
export const runRelevance = async (
  baseUrl: string,
  generated: Generated,
  rows: Rows,
  options: { readonly warmUp: boolean; readonly log?: (line: string) => void }
): Promise<RelevanceRun> => {
  if (options.warmUp) for (const query of generated.queries) await ask(baseUrl, query)
  const answers: Array<Answer> = []
  for (const query of generated.queries) answers.push(await ask(baseUrl, query))
  const facts = await readFacts(rows, answers)
  const judged = answers.map((answer): Judged => ({ answer, rank: rankOf(answer, facts), ms: answer.ms }))
  const classes = QUERY_CLASSES.map((queryClass) => {
    const mine = judged.filter((j) => j.answer.query.className === queryClass.name)
    const reasons = generated.skipped.get(queryClass.name) ?? new Map<string, number>()
    const skipped = [...reasons.values()].reduce((a, b) => a + b, 0)
    const why = [...reasons].map(([reason, count]) => `${count} ${reason}`).join("; ")
    const example = mine[0]?.answer.query.made.text ?? queryClass.example
    const figures = figuresOf(queryClass.name, example, mine, skipped, why)
    options.log?.(`${queryClass.name.padEnd(32)} n ${String(figures.n).padStart(4)}  hit@1 ${pct(figures.hitAt1).padStart(5)}  p95 ${figures.p95.toFixed(1)} ms`)
    return figures
  })
  const misses = new Map(QUERY_CLASSES.map((queryClass) => [
    queryClass.name,
    judged.filter((j) => j.answer.query.className === queryClass.name && j.rank !== 1)
      .map((j) => ({ query: j.answer.query.made.text, rank: j.rank }))
  ]))
  const skippedAll = classes.reduce((sum, c) => sum + c.skipped, 0)
  return { classes, all: figuresOf("all classes", "", judged, skippedAll, ""), misses }
}

const pct = (share: number) => (Number.isNaN(share) ? "-" : `${Math.round(share * 100)}%`)
const ms = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(1))

/** The table, in Markdown (printed as it is). */
export const renderRelevanceTable = (run: RelevanceRun): string => {
  const row = (c: ClassFigures, example: string) =>
    `| ${c.name} | ${example} | ${c.n} | ${c.skipped} | ${pct(c.hitAt1)} | ${c.firstAnother} | ${pct(c.hitAt5)} | ${Number.isNaN(c.mrr) ? "-" : c.mrr.toFixed(2)} | ${ms(c.p50)} | ${ms(c.p95)} | ${ms(c.p99)} |`
  return [
    "| class | example | n | skipped | hit@1 | first another | hit@5 | MRR | p50 ms | p95 ms | p99 ms |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...run.classes.map((c) => row(c, `\`${c.example.replace(/\|/g, "\\|")}\``)),
    row({ ...run.all, name: "**all classes**" }, "")
  ].join("\n")
}

/** Why targets were skipped, per class (only the classes that skipped some). */
export const renderSkips = (run: RelevanceRun): string =>
  run.classes.filter((c) => c.skipped > 0).map((c) => `- ${c.name}: ${c.skippedWhy}`).join("\n")
