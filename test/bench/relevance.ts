/**
 * `bun run bench --relevance [--database NAME] [--songs N] [--targets N] [--seed S] [--label TEXT]`
 *
 * The relevance suite (./relevanceQueries.ts, ./relevanceSuite.ts) against the service started
 * on a catalogue, one client, response cache off; prints the table and writes it into the
 * "Search relevance" section of test/bench/RESULTS.md for that catalogue (or label), keeping the
 * rest of the file. See test/bench/README.md.
 */
import { loadavg } from "node:os"
import pg from "pg"
import { ensureCatalogue, migrateExisting, serverVersion } from "./catalogue.js"
import { freePort, startServer } from "./processes.js"
import { EXTRA_POOLS, generateQueries, type Rows } from "./relevanceQueries.js"
import { RELEVANCE_FLOORS, renderRelevanceTable, renderSkips, runRelevance } from "./relevanceSuite.js"
import { HOSTILE_BOUNDS, hostileVerdict, renderHostileTable, runHostile } from "./hostileSearches.js"
import { sweepDatabaseName, writeResultsSection } from "./sweep.js"

const JUDGE = "test/bench/relevanceJudge.ts"

const git = (...args: ReadonlyArray<string>) => {
  const result = Bun.spawnSync(["git", ...args], { cwd: `${import.meta.dir}/../..` })
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString().trim()}`)
  return result.stdout.toString().trim()
}

/**
 * The commit the judge was last changed in. A figure is recorded only with the judge committed,
 * so that it names the rule it was judged by (test/bench/README.md, "Search relevance").
 */
const judgeCommit = () => {
  if (git("status", "--porcelain", "--", JUDGE) !== "") throw new Error(`${JUDGE} has uncommitted changes: commit the judge before recording a figure`)
  return git("log", "-1", "--format=%h", "--", JUDGE)
}

export interface RelevanceOptions {
  readonly songs: number
  /** an existing catalogue to use as it is (migrated, never seeded), e.g. catalogue_1m */
  readonly database: string | undefined
  readonly targets: number
  readonly seed: number
  /** names the section instead of the catalogue's size (e.g. the engine measured), so that another run keeps it */
  readonly label: string | undefined
}

export const runRelevanceBench = async (serverUrl: string, options: RelevanceOptions, log: (line: string) => void) => {
  const started = performance.now()
  if (!Number.isInteger(options.targets) || options.targets <= 0) throw new Error("--targets needs a positive whole number")
  if (!Number.isInteger(options.seed)) throw new Error("--seed needs a whole number")
  const judge = judgeCommit()
  let url: string
  let name: string
  if (options.database !== undefined) {
    name = options.database
    url = await migrateExisting(serverUrl, name, log)
  } else {
    name = sweepDatabaseName(options.songs)
    url = (await ensureCatalogue(serverUrl, name, options.songs, { quiet: false, log })).url
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const port = freePort()
  const service = await startServer("service", ["bun", "--max-http-header-size=131072", "src/main.ts"], {
    DATABASE_URL: url,
    PORT: String(port),
    LOG_LEVEL: "warn",
    CACHE_TTL_SECONDS: "0",
    RATE_LIMIT_CAPACITY: "1000000000",
    RATE_LIMIT_MAX_IN_FLIGHT: "1000000"
  }, port)
  try {
    const rows: Rows = async (text, params = []) => (await client.query(text, [...params])).rows
    const songs = Number((await rows("SELECT count(*)::int AS n FROM songs"))[0]?.n)
    const publicSongs = Number((await rows("SELECT count(*)::int AS n FROM public_songs"))[0]?.n)
    log(`generating the queries (seed ${options.seed}, ${options.targets} targets)`)
    const generated = await generateQueries(rows, { targets: options.targets, seed: options.seed })
    const drawn = (kind: string) => generated.targets.filter((target) => target.drawn === kind).length
    log(`${generated.queries.length} queries over ${generated.targets.length} targets; asking each twice (the first pass warms up)`)
    const run = await runRelevance(service.baseUrl, generated, rows, { warmUp: true, log })
    const table = renderRelevanceTable(run)
    console.log(`\n${table}\n\n${renderSkips(run)}`)
    // what each class below the floor missed, to read the failure
    for (const figures of run.classes.filter((c) => c.n > 0 && c.hitAt1 < RELEVANCE_FLOORS.hitAt1)) {
      const misses = run.misses.get(figures.name) ?? []
      log(`${figures.name}: ${misses.length} missed, e.g. ${misses.slice(0, 8).map((m) => `${JSON.stringify(m.query)} (${m.rank === 0 ? "not in the 10" : `rank ${m.rank}`})`).join(", ")}`)
    }
    log("the hostile-query suite (test/bench/hostileSearches.ts)")
    const hostile = await runHostile(service.baseUrl, HOSTILE_BOUNDS.rounds, log)
    const hostileTable = renderHostileTable(hostile, run.all.p50)
    const verdict = hostileVerdict(hostile, run.all.p50)
    console.log(`\n${hostileTable}\n\n${verdict}`)
    const heading = `## Search relevance at ${songs.toLocaleString("en-US")} songs${options.label === undefined ? "" : `: ${options.label}`}`
    const section = [
      heading,
      "",
      `Written by \`bun run bench --relevance${options.database === undefined ? ` --songs ${options.songs}` : ` --database ${name}`}` +
        ` --targets ${options.targets} --seed ${options.seed}${options.label === undefined ? "" : ` --label "${options.label}"`}\` (test/bench/README.md, "Search relevance") on ` +
        `${new Date().toISOString().slice(0, 16)}Z: database \`${name}\`, ${songs.toLocaleString("en-US")} songs ` +
        `(${publicSongs.toLocaleString("en-US")} public), PostgreSQL ${await serverVersion(url)}; ${generated.targets.length} targets ` +
        `(${drawn("most viewed")} among the most viewed, ${drawn("random")} at random; and more for the classes that need ` +
        `them: ${Object.keys(EXTRA_POOLS).map((pool) => `${drawn(pool)} ${pool}`).join(", ")}), seed ${options.seed}. ` +
        `\`/v1/search?q=..&types=songs|artists&limit=10\`, one client, response cache off, after one warm-up pass; ` +
        `load average at the end ${loadavg()[0]!.toFixed(1)} (2 cores shared). hit@k: an accepted answer (the target, or a ` +
        `result the judge takes as as right: docs/search.md, "Relevance: how it is judged") among the first k; first another: ` +
        `hits at 1 by an accepted answer other than the target; MRR: the mean of 1 / its rank (0 when not in the 10). ` +
        `The judge: ${JUDGE} at commit ${judge}.`,
      "",
      table,
      "",
      "Targets skipped for a class (it cannot make that query):",
      "",
      renderSkips(run),
      "",
      `### Hostile searches at ${songs.toLocaleString("en-US")} songs`,
      "",
      `The same service and catalogue right after: each class of test/bench/hostileSearches.ts asked ${HOSTILE_BOUNDS.rounds} times per query, ` +
        "for every type and for songs alone, at `limit=20`, one client, one at a time, after one unmeasured pass; " +
        `the relevance suite's median above (all classes): ${run.all.p50.toFixed(1)} ms.`,
      "",
      hostileTable,
      "",
      verdict
    ].join("\n")
    const key = options.label === undefined ? String(songs) : options.label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")
    writeResultsSection(`relevance ${key}`, section)
    log(`wrote the relevance section to test/bench/RESULTS.md in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    await service.stop()
    await client.end()
  }
}
