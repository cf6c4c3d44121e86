/**
 * `bun run bench --fairness [--songs N | --database NAME] [--turns T] [--seconds S]`
 *
 * One client at its full rate against another client's latency, at a catalogue's size: the
 * measurement of test/fairness.test.ts (test/support/fairness.ts) against the service as a child
 * process, with the edge's real settings (360 per 60 s, TRUST_PROXY=1, response cache off), with
 * the default bound on requests in flight, a looser one and none, for heavy and for ordinary
 * two-word searches. Writes the "Fairness" section of test/bench/RESULTS.md for
 * that size. See test/bench/README.md.
 */
import { loadavg } from "node:os"
import { ensureCatalogue, migrateExisting, queryColumn, serverVersion } from "./catalogue.js"
import { freePort, startServer } from "./processes.js"
import { sweepDatabaseName, writeResultsSection } from "./sweep.js"
import { browsePaths, describeFairness, type FairnessResult, heavySearches, measureFairness, percentile } from "../support/fairness.js"

export interface FairnessBenchOptions {
  readonly songs: number
  /** an existing catalogue to use as it is (migrated, never seeded), e.g. catalogue_1m */
  readonly database: string | undefined
  /** loaded turns, each between two turns of B alone */
  readonly turns: number
  /** seconds of a loaded turn (a turn alone is half as long) */
  readonly seconds: number
}

/** Ordinary searches: two common words. */
const twoWordSearches = ["cinta lagu", "rindu malam", "hati sayang", "bulan bintang", "hujan kasih", "dunia mimpi"]
  .map((q) => `/v1/search?q=${encodeURIComponent(q)}`)

/** The default bound, a looser one (to choose the default by) and none (what the bound buys). */
const EDGES = [
  { name: "1 running, 32 waiting (the defaults)", env: {} },
  { name: "2 running, 32 waiting", env: { RATE_LIMIT_MAX_IN_FLIGHT: "2" } },
  { name: "no bound", env: { RATE_LIMIT_MAX_IN_FLIGHT: "1000000" } }
] as const

const LOADS = [
  { name: "heavy searches (100 characters: 12 words and a Han title)", searches: heavySearches },
  { name: "two-word searches", searches: twoWordSearches }
] as const

const ms = (value: number) => `${value.toFixed(1)} ms`

const row = (edge: string, load: string, result: FairnessResult) => {
  const alone = percentile(result.alone, 99)
  const loaded = percentile(result.loaded, 99)
  const statuses = Object.entries(result.aStatuses).map(([status, n]) => `${n} x ${status}`).join(", ")
  const bFailures = result.bFailures.length === 0 ? "none" : `${result.bFailures.length} (${[...new Set(result.bFailures.map((f) => f.split(" ")[0]))].join(", ")})`
  return `| ${edge} | ${load} | ${ms(percentile(result.alone, 50))} / ${ms(alone)} | ${ms(percentile(result.loaded, 50))} / ${ms(loaded)} | ` +
    `${(loaded / alone).toFixed(2)}x | ${bFailures} | ${statuses} |`
}

export const runFairnessBench = async (serverUrl: string, options: FairnessBenchOptions, log: (line: string) => void) => {
  const started = performance.now()
  const name = options.database ?? sweepDatabaseName(options.songs)
  const url = options.database !== undefined
    ? await migrateExisting(serverUrl, name, log)
    : (await ensureCatalogue(serverUrl, name, options.songs, { quiet: false, log })).url
  const publicSongs = Number((await queryColumn(url, "SELECT count(*) AS v FROM public_songs"))[0])
  const rows: Array<string> = []
  for (const edge of EDGES) {
    const port = freePort()
    const service = await startServer(`service (${edge.name})`, ["bun", "--max-http-header-size=131072", "src/main.ts"], {
      DATABASE_URL: url,
      PORT: String(port),
      LOG_LEVEL: "warn",
      CACHE_TTL_SECONDS: "0",
      TRUST_PROXY: "1",
      ...edge.env
    }, port)
    try {
      const browse = await browsePaths(service.baseUrl)
      for (const load of LOADS) {
        const result = await measureFairness({
          baseUrl: service.baseUrl,
          browse,
          searches: load.searches,
          loadedTurns: options.turns,
          aloneMs: (options.seconds * 1000) / 2,
          loadedMs: options.seconds * 1000
        })
        log(`${edge.name}, ${load.name}: ${describeFairness(result)}`)
        rows.push(row(edge.name, load.name, result))
      }
    } finally {
      await service.stop()
    }
  }
  const section = [
    `## Fairness at ${publicSongs.toLocaleString("en-US")} public songs`,
    "",
    `Written by \`bun run bench --fairness ${options.database === undefined ? `--songs ${options.songs}` : `--database ${name}`} ` +
      `--turns ${options.turns} --seconds ${options.seconds}\` (test/bench/README.md, "Fairness") on ${new Date().toISOString().slice(0, 16)}Z: ` +
      `database \`${name}\`, PostgreSQL ${await serverVersion(url)}; the service with 360 per 60 s, \`TRUST_PROXY=1\`, response cache off. ` +
      `Client A: searches over 16 keep-alive connections as fast as its bucket allows; client B: lists and details, one at a time ` +
      `(${options.turns} turns of ${options.seconds} s under A's load between ${options.turns + 1} of ${options.seconds / 2} s alone). ` +
      `The bar: B gets no 5xx and B's p99 under load stays within 2x of its p99 alone. ` +
      `Load average at the end: ${loadavg()[0]!.toFixed(1)} (1 minute; 2 cores shared).`,
    "",
    "| edge | A sends | B alone p50 / p99 | B under A's load p50 / p99 | p99 ratio | B's failures | A's answers |",
    "|---|---|---|---|---|---|---|",
    ...rows
  ].join("\n")
  console.log(`\n${section}`)
  writeResultsSection(`fairness ${publicSongs}`, section)
  log(`wrote the fairness section to test/bench/RESULTS.md in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}
