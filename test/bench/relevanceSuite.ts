/**
 * Runs the relevance suite's queries against a service over HTTP, one request at a time, judges
 * each answer and sums up per class: hit@1, hit@5, MRR and latency. The judge is here and only
 * here (docs/search.md, "Relevance").
 */
import { type Generated, QUERY_CLASSES, type Query, type Rows } from "./relevanceQueries.js"

/** What CI asks of every class (test/search-relevance.test.ts), and the issue of every class at 1M songs. */
export const RELEVANCE_FLOORS = { hitAt1: 0.95 } as const

/** Results asked per query. */
export const RESULT_LIMIT = 10

export interface ClassFigures {
  readonly name: string
  readonly example: string
  readonly n: number
  readonly skipped: number
  readonly skippedWhy: string
  readonly hitAt1: number
  readonly hitAt5: number
  readonly mrr: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
}

interface Answer {
  readonly query: Query
  readonly ids: ReadonlyArray<number>
  readonly ms: number
}

interface SongFacts {
  readonly title: string
  readonly performers: ReadonlyArray<string>
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

const idArray = (ids: Iterable<number>) => `{${[...new Set(ids)].join(",")}}`

/** The folded title and performers' folded names of every song found, and the folded name of every artist found. */
const readFacts = async (rows: Rows, answers: ReadonlyArray<Answer>) => {
  const idsOf = (type: Query["type"]) => answers.filter((answer) => answer.query.type === type).flatMap((answer) => answer.ids)
  const songs = new Map<number, SongFacts>()
  for (const row of await rows(
    `SELECT s.id::int AS id, fold_name(s.title) AS title,
       array(SELECT fold_name(a.name) FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
             JOIN artists a ON a.id = c.artist_id WHERE c.song_id = s.id) AS performers
     FROM songs s WHERE s.id = ANY($1::int[])`,
    [idArray(idsOf("songs"))]
  )) songs.set(Number(row.id), { title: String(row.title), performers: (row.performers as ReadonlyArray<string>) ?? [] })
  const artists = new Map<number, string>()
  for (const row of await rows(`SELECT id::int AS id, fold_name(name) AS name FROM artists WHERE id = ANY($1::int[])`, [idArray(idsOf("artists"))])) {
    artists.set(Number(row.id), String(row.name))
  }
  return { songs, artists }
}

/**
 * The judge: a result counts as the target when it is the target, or cannot be told from it by
 * that query: a song whose folded title is the target's (and, when the query names the artist,
 * whose performers include an artist of the target artist's folded name); an artist whose folded
 * name is the target artist's.
 */
const isTarget = (query: Query, id: number, facts: Awaited<ReturnType<typeof readFacts>>): boolean => {
  const { target } = query
  if (query.type === "artists") return id === target.artist?.id || facts.artists.get(id) === target.artist?.folded
  if (id === target.songId) return true
  const song = facts.songs.get(id)
  if (song === undefined || song.title !== target.folded) return false
  const namesArtist = QUERY_CLASSES.find((queryClass) => queryClass.name === query.className)?.namesArtist ?? false
  return !namesArtist || song.performers.includes(target.artist?.folded ?? "")
}

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const figuresOf = (name: string, example: string, judged: ReadonlyArray<{ rank: number; ms: number }>, skipped: number, skippedWhy: string): ClassFigures => {
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
  const judged = answers.map((answer) => {
    const at = answer.ids.findIndex((id) => isTarget(answer.query, id, facts))
    return { answer, rank: at + 1, ms: answer.ms }
  })
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
    `| ${c.name} | ${example} | ${c.n} | ${c.skipped} | ${pct(c.hitAt1)} | ${pct(c.hitAt5)} | ${Number.isNaN(c.mrr) ? "-" : c.mrr.toFixed(2)} | ${ms(c.p50)} | ${ms(c.p95)} | ${ms(c.p99)} |`
  return [
    "| class | example | n | skipped | hit@1 | hit@5 | MRR | p50 ms | p95 ms | p99 ms |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...run.classes.map((c) => row(c, `\`${c.example.replace(/\|/g, "\\|")}\``)),
    row({ ...run.all, name: "**all classes**" }, "")
  ].join("\n")
}

/** Why targets were skipped, per class (only the classes that skipped some). */
export const renderSkips = (run: RelevanceRun): string =>
  run.classes.filter((c) => c.skipped > 0).map((c) => `- ${c.name}: ${c.skippedWhy}`).join("\n")
