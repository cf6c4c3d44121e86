/**
 * `bun run bench [--smoke] [--rounds N] [--seconds S] [--connections C] [--songs N] [--database NAME] [--only A,B]`
 * `bun run bench --sweep [--songs N] [--database NAME] [--requests R] [--families A,B]` (one client per endpoint: ./sweep.ts)
 * `bun run bench --relevance [--songs N] [--database NAME] [--targets N] [--seed S] [--label TEXT]` (./relevance.ts)
 * `bun run bench --fairness [--songs N] [--database NAME] [--turns T] [--seconds S]` (one client's load, another's p99: ./fairness.ts)
 * `bun run bench --mirror [--songs N] [--database NAME]` (a snapshot, then a mirror from nothing through HTTP: ./mirror.ts)
 *
 * The service against two hand-written baselines (Bun.serve + Bun.SQL, Bun.serve + `pg` with
 * named prepared statements) running the repository's own statements, with wrk on loopback in
 * interleaved rounds. Writes test/bench/RESULTS.md (not with --smoke). See test/bench/README.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir, totalmem } from "node:os"
import { join, resolve } from "node:path"
import { ensureCatalogue, queryColumn, serverVersion } from "./catalogue.js"
import { type BenchCollector, startBenchCollector } from "./collector.js"
import { cpuSeconds, freePort, peakRssMiB, type ServerProcess, startServer } from "./processes.js"
import { type Measurement, renderReport, type RoleName, type ScenarioName, type Results } from "./report.js"
import { captureStatements, LIST_LIMIT } from "./statements.js"
import { runFairnessBench } from "./fairness.js"
import { runMirrorBench } from "./mirror.js"
import { runRelevanceBench } from "./relevance.js"
import { runSweep, sweepSections } from "./sweep.js"
import { ensureWrk, runWrk } from "./wrk.js"

const HERE = import.meta.dir

interface Options {
  readonly smoke: boolean
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
  readonly threads: number
  readonly songs: number
}

const parseOptions = (argv: ReadonlyArray<string>): Options => {
  const smoke = argv.includes("--smoke")
  const value = (flag: string, fallback: number) => {
    const index = argv.indexOf(flag)
    if (index === -1) return fallback
    const parsed = Number(argv[index + 1])
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive number`)
    return parsed
  }
  return smoke
    ? { smoke, rounds: 1, seconds: 1, warmupSeconds: 0, connections: 10, threads: 1, songs: value("--songs", 2000) }
    : {
      smoke,
      rounds: value("--rounds", 5),
      seconds: value("--seconds", 10),
      warmupSeconds: value("--warmup", 2),
      connections: value("--connections", 50),
      threads: 2,
      songs: value("--songs", 100_000)
    }
}

const options = parseOptions(process.argv.slice(2))
const log = (line: string) => console.error(`bench: ${line}`)

/** The server the databases live on: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else local PostgreSQL. */
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres"
// --database: another catalogue database (made and seeded when it is not a complete one of --songs)
const databaseFlag = process.argv.indexOf("--database")
const databaseName = options.smoke
  ? `catalogue_bench_smoke_${process.pid}`
  : (databaseFlag === -1 ? undefined : process.argv[databaseFlag + 1]) ?? "catalogue_bench"

/** Buckets for the deployed shape's service: a database of its own on the shared Redis, apart from the tests' (0). */
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/15"

const servers: Array<ServerProcess> = []
const workDir = mkdtempSync(join(tmpdir(), "catalogue-bench-"))
let dropDatabase: (() => Promise<void>) | undefined
let collector: BenchCollector | undefined

const cleanup = async () => {
  await Promise.all(servers.map((server) => server.stop()))
  collector?.stop()
  rmSync(workDir, { recursive: true, force: true })
  if (options.smoke && dropDatabase !== undefined) await dropDatabase().catch(() => undefined)
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void cleanup().finally(() => process.exit(130)))
}

const writeList = (name: string, lines: ReadonlyArray<string>) => {
  const file = join(workDir, `${name}.txt`)
  writeFileSync(file, lines.join("\n") + "\n")
  return file
}

const getJson = async (url: string) => {
  const response = await fetch(url, { headers: { "accept-encoding": "identity" } })
  const text = await response.text()
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text.slice(0, 200)}`)
  return { text, body: JSON.parse(text) as { meta?: { next_cursor?: string } } }
}

const main = async () => {
  const started = performance.now()
  ensureWrk(log)
  const catalogue = await ensureCatalogue(serverUrl, databaseName, options.songs, { quiet: options.smoke, log })
  dropDatabase = catalogue.drop
  const databaseUrl = catalogue.url

  const serviceEnv = (extra: Record<string, string>, port: number) => ({
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    LOG_LEVEL: "warn",
    RATE_LIMIT_CAPACITY: "1000000000",
    RATE_LIMIT_MAX_IN_FLIGHT: "1000000",
    ...extra
  })
  const startService = async (name: string, extra: Record<string, string>) => {
    const port = freePort()
    const server = await startServer(name, ["bun", "--max-http-header-size=131072", "src/main.ts"], serviceEnv(extra, port), port)
    servers.push(server)
    return server
  }
  // The real bucket; the smoke's few requests must still empty one.
  const floodCapacity = options.smoke ? 20 : 360
  await ensureRedis(redisUrl)
  collector = startBenchCollector(freePort())
  log("starting the service four times: uncached, cached, cached as deployed (Redis, OTLP), real rate limit")
  const [service, serviceCached, serviceDeployed, serviceLimited] = await Promise.all([
    startService("service", { CACHE_TTL_SECONDS: "0" }),
    startService("service (cache on)", {}),
    // the compose recipe's shape: buckets in Redis, traces (a tenth of the requests) and metrics over OTLP
    startService("service (Redis, OTLP 0.1)", {
      RATE_LIMIT_REDIS_URL: redisUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "catalogue-bench",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1"
    }),
    startService("service (real limit)", { RATE_LIMIT_CAPACITY: String(floodCapacity) })
  ])

  // Request paths, drawn from the catalogue itself.
  const publicIds = await queryColumn(databaseUrl, "SELECT id AS v FROM public_songs ORDER BY id")
  const byPopularity = await queryColumn(
    databaseUrl,
    "SELECT id AS v FROM public_songs ORDER BY vidsvc_views DESC NULLS LAST, id"
  )
  const deep = options.smoke ? Math.floor(publicIds.length / 2) : 50_000
  const cursorCount = options.smoke ? 3 : 20
  const cursors: Array<string> = []
  for (let i = 0; i < cursorCount; i++) {
    const { body } = await getJson(`${service.baseUrl}/v1/songs?limit=${LIST_LIMIT}&offset=${deep - LIST_LIMIT + i * LIST_LIMIT}`)
    const cursor = body.meta?.next_cursor
    if (typeof cursor !== "string" || cursor === "") throw new Error(`no next_cursor at offset ${deep}`)
    cursors.push(cursor)
  }
  const searchPaths = await searchQueries(databaseUrl)

  const detailPaths = publicIds.map((id) => `/v1/songs/${id}`)
  const lists = {
    uniform: writeList("detail-uniform", detailPaths),
    zipf: writeList("detail-zipf", byPopularity.map((id) => `/v1/songs/${id}`)),
    first: writeList("list-first", [`/v1/songs?limit=${LIST_LIMIT}`]),
    deep: writeList("list-deep", cursors.map((cursor) => `/v1/songs?limit=${LIST_LIMIT}&cursor=${cursor}`)),
    search: writeList("search", searchPaths),
    flood: writeList("flood", [`/v1/songs/${publicIds[0]}`])
  }

  // The baselines, on the service's own statements.
  const statements = await captureStatements(databaseUrl, Number(publicIds[0]), cursors[0]!)
  const statementsFile = join(workDir, "statements.json")
  writeFileSync(statementsFile, JSON.stringify(statements))
  const baselineNames = { bunsql: "Bun.SQL", pg: "pg prepared", httpapi: "HttpApi floor" } as const
  const startBaseline = async (driver: keyof typeof baselineNames) => {
    const port = freePort()
    const server = await startServer(
      baselineNames[driver],
      ["bun", join(HERE, "baseline.ts"), driver, String(port), statementsFile],
      { DATABASE_URL: databaseUrl },
      port
    )
    servers.push(server)
    return server
  }
  const [bunsql, pgPrepared, floor] = await Promise.all([startBaseline("bunsql"), startBaseline("pg"), startBaseline("httpapi")])

  // Same bytes, or no measurement.
  const samplePaths = [
    ...Array.from({ length: 30 }, (_, i) => detailPaths[Math.floor((i * detailPaths.length) / 30)]!),
    `/v1/songs?limit=${LIST_LIMIT}`,
    ...cursors.slice(0, 5).map((cursor) => `/v1/songs?limit=${LIST_LIMIT}&cursor=${cursor}`)
  ]
  for (const path of samplePaths) {
    const expected = (await getJson(service.baseUrl + path)).text
    for (const baseline of [bunsql, pgPrepared, floor]) {
      const actual = (await getJson(baseline.baseUrl + path)).text
      if (actual !== expected) {
        throw new Error(`${baseline.name} answers other bytes than the service for ${path}:\n${expected.slice(0, 300)}\n${actual.slice(0, 300)}`)
      }
    }
  }
  log(`byte-equal: ${samplePaths.length} paths x 3 baselines`)

  const roles: Record<RoleName, ServerProcess> = {
    service,
    "service-cached": serviceCached,
    "service-deployed": serviceDeployed,
    "service-limited": serviceLimited,
    bunsql,
    pg: pgPrepared,
    httpapi: floor
  }
  const scenarios: ReadonlyArray<{
    readonly name: ScenarioName
    readonly script: "uniform" | "zipf"
    readonly list: string
    readonly roles: ReadonlyArray<RoleName>
    /** default: --connections */
    readonly connections?: number
    /** the same traffic for this many seconds right before each measured run (a warm response cache) */
    readonly warmSeconds?: number
  }> = [
    { name: "detail-uniform", script: "uniform", list: lists.uniform, roles: ["service", "bunsql", "pg", "httpapi"] },
    // steady state: the response cache is warm when measuring (every server gets the same warm-up)
    {
      name: "detail-zipf",
      script: "zipf",
      list: lists.zipf,
      roles: ["service-cached", "service-deployed", "bunsql", "pg"],
      warmSeconds: options.smoke ? 0 : 5
    },
    { name: "list-first", script: "uniform", list: lists.first, roles: ["service", "bunsql", "pg", "httpapi"] },
    { name: "list-deep", script: "uniform", list: lists.deep, roles: ["service", "bunsql", "pg", "httpapi"] },
    { name: "search", script: "uniform", list: lists.search, roles: ["service"] },
    // one client's latency: what a search box feels (the 50-connection run measures saturation)
    { name: "search-1", script: "uniform", list: lists.search, roles: ["service"], connections: 1 },
    { name: "flood-429", script: "uniform", list: lists.flood, roles: ["service-limited"] }
  ]

  // --only: just these scenarios (an A/B of one part); the report is printed, RESULTS.md untouched
  const only = sweepOption("--only")?.split(",")
  const unknown = only?.filter((name) => !scenarios.some((scenario) => scenario.name === name)) ?? []
  if (unknown.length > 0) {
    throw new Error(`--only: unknown scenario ${unknown.join(", ")} (known: ${scenarios.map((scenario) => scenario.name).join(", ")})`)
  }
  const chosen = only === undefined ? scenarios : scenarios.filter((scenario) => only.includes(scenario.name))

  const measure = async (role: RoleName, scenario: (typeof scenarios)[number], seconds: number): Promise<Measurement> => {
    const server = roles[role]
    const cpuBefore = cpuSeconds(server.pid)
    const wrk = await runWrk({
      baseUrl: server.baseUrl,
      script: scenario.script,
      listFile: scenario.list,
      connections: scenario.connections ?? options.connections,
      threads: Math.min(options.threads, scenario.connections ?? options.connections),
      seconds
    })
    const cpu = cpuSeconds(server.pid) - cpuBefore
    if (wrk.socketErrors > 0) log(`${scenario.name} on ${server.name}: ${wrk.socketErrors} socket errors`)
    // Failures under load (a statement timeout's 503) are results, reported in the table; only the flood expects them.
    if (scenario.name !== "flood-429" && wrk.non2xx > 0) log(`${scenario.name} on ${server.name}: ${wrk.non2xx} non-2xx responses`)
    return { wrk, cpuPerRequestUs: (cpu / Math.max(1, wrk.requests)) * 1e6, peakRssMiB: peakRssMiB(server.pid) }
  }

  if (options.warmupSeconds > 0) {
    log("warm-up")
    for (const scenario of chosen) for (const role of scenario.roles) await measure(role, scenario, options.warmupSeconds)
  }

  const results: Results = { rounds: [] }
  for (let round = 1; round <= options.rounds; round++) {
    log(`round ${round} of ${options.rounds}`)
    const roundResults: Results["rounds"][number] = {}
    const runScenario = async (scenario: (typeof scenarios)[number]) => {
      const byRole: Partial<Record<RoleName, Measurement>> = {}
      for (const role of scenario.roles) {
        if (scenario.warmSeconds !== undefined && scenario.warmSeconds > 0) await measure(role, scenario, scenario.warmSeconds)
        const measurement = await measure(role, scenario, options.seconds)
        byRole[role] = measurement
        log(
          `  ${scenario.name.padEnd(15)} ${roles[role].name.padEnd(21)} ${measurement.wrk.requestsPerSecond.toFixed(0).padStart(7)} req/s` +
            `  p50 ${measurement.wrk.p50Ms.toFixed(1)} ms  p99 ${measurement.wrk.p99Ms.toFixed(1)} ms`
        )
      }
      roundResults[scenario.name] = byRole
    }
    // The smoke checks that everything runs, not how fast: its scenarios run side by side.
    if (options.smoke) await Promise.all(chosen.map(runScenario))
    else for (const scenario of chosen) await runScenario(scenario)
    results.rounds.push(roundResults)
  }

  // A full bucket plus the refill during the run (capacity per 60 s) may pass; everything else must be a 429.
  const flood = results.rounds.map((round) => round["flood-429"]?.["service-limited"]?.wrk)
  for (const run of flood) {
    const mayPass = floodCapacity + Math.ceil((floodCapacity / 60) * options.seconds) + 1
    // a run too slow to empty the bucket (a loaded machine) proves nothing either way
    if (run !== undefined && run.requests > mayPass && run.non2xx < run.requests - mayPass) {
      throw new Error(`flood: only ${run.non2xx} of ${run.requests} requests were refused`)
    }
  }

  // the deployed shape measured what it claims: its traces and metrics reached the collector
  if (chosen.some((scenario) => scenario.roles.includes("service-deployed"))) {
    await serviceDeployed.stop() // flushes what its exporters hold
    const { spans, metricExports } = collector.received()
    log(`collector: ${spans} spans, ${metricExports} metric exports from ${serviceDeployed.name}`)
    if (spans === 0 || metricExports === 0) throw new Error(`${serviceDeployed.name}: no spans or no metrics reached the collector`)
  }

  const report = renderReport(results, {
    date: new Date().toISOString(),
    smoke: options.smoke,
    machine: await machineFacts(databaseUrl),
    settings: {
      songs: options.songs,
      publicSongs: publicIds.length,
      deepOffset: deep,
      rounds: options.rounds,
      seconds: options.seconds,
      connections: options.connections,
      threads: options.threads,
      searchQueries: searchPaths.length,
      reusedCatalogue: catalogue.reused
    },
    names: Object.fromEntries(Object.entries(roles).map(([role, server]) => [role, server.name])) as Record<RoleName, string>
  })
  console.log(report.text)
  if (!options.smoke && only === undefined) {
    const resultsFile = resolve(HERE, "RESULTS.md")
    const sweeps = existsSync(resultsFile) ? sweepSections(readFileSync(resultsFile, "utf8")) : ""
    writeFileSync(resultsFile, sweeps === "" ? report.markdown : `${report.markdown.trimEnd()}\n\n${sweeps}\n`)
    log("wrote test/bench/RESULTS.md")
  }
  log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

/** The deployed shape's buckets need Redis: without it the service would limit in memory, and measure that. */
const ensureRedis = async (url: string) => {
  const redis = new Bun.RedisClient(url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 2000 })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    throw new Error(`no Redis at ${url} (BENCH_REDIS_URL) for the deployed shape: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    redis.close()
  }
}

/** A deterministic mix: whole titles and names, prefixes, single words, honorifics, no diacritics, typos, short words. */
const searchQueries = async (databaseUrl: string) => {
  const column = (text: string) => queryColumn(databaseUrl, text)
  const titles = await column("SELECT title AS v FROM public_songs ORDER BY id LIMIT 40 OFFSET 500")
  const names = await column("SELECT name AS v FROM public_artists ORDER BY id LIMIT 30 OFFSET 30")
  const honorific = await column(
    "SELECT prefix_title || ' ' || name AS v FROM public_artists WHERE prefix_title IS NOT NULL ORDER BY id LIMIT 10"
  )
  const plain = await column("SELECT unaccent(name) AS v FROM public_artists WHERE name <> unaccent(name) ORDER BY id LIMIT 10")
  const typo = (text: string) => {
    const at = Math.floor(text.length / 2)
    return text.slice(0, at) + (text[at] === "a" ? "e" : "a") + text.slice(at + 1)
  }
  const queries = [
    ...titles,
    ...titles.slice(0, 15).map((title) => title.slice(0, 4)),
    ...titles.slice(15, 30).map((title) => title.split(" ").at(-1) ?? title),
    ...names,
    ...names.filter((name) => name.length >= 8).slice(0, 10).map(typo),
    ...honorific,
    ...plain,
    "a", "ku", "ma", "cinta", "lagu", "rindu", "love"
  ]
  return queries.map((query) => `/v1/search?q=${encodeURIComponent(query.trim().slice(0, 100))}`)
}

const machineFacts = async (databaseUrl: string) => {
  const wrkVersion = Bun.spawnSync(["wrk", "--version"]).stdout.toString().split("\n")[0]?.trim() ?? "?"
  const pgPackage = (await Bun.file(resolve(HERE, "../../node_modules/pg/package.json")).json()) as { version: string }
  const kernel = Bun.spawnSync(["uname", "-sr"]).stdout.toString().trim()
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "?",
    memoryGiB: totalmem() / 1024 ** 3,
    kernel,
    bun: Bun.version,
    postgres: await serverVersion(databaseUrl),
    pgPackage: pgPackage.version,
    wrk: wrkVersion
  }
}

const sweepOption = (flag: string) => {
  const index = process.argv.indexOf(flag)
  return index === -1 ? undefined : process.argv[index + 1]
}

try {
  if (process.argv.includes("--sweep")) {
    await runSweep(serverUrl, {
      songs: options.songs,
      database: sweepOption("--database"),
      requests: Number(sweepOption("--requests") ?? 40),
      families: sweepOption("--families")?.split(",")
    }, log)
  } else if (process.argv.includes("--relevance")) {
    await runRelevanceBench(serverUrl, {
      songs: options.songs,
      database: sweepOption("--database"),
      targets: Number(sweepOption("--targets") ?? 200),
      seed: Number(sweepOption("--seed") ?? 1),
      label: sweepOption("--label")
    }, log)
  } else if (process.argv.includes("--fairness")) {
    await runFairnessBench(serverUrl, {
      songs: options.songs,
      database: sweepOption("--database"),
      turns: Number(sweepOption("--turns") ?? 3),
      seconds: options.seconds
    }, log)
  } else if (process.argv.includes("--mirror")) {
    await runMirrorBench(serverUrl, { songs: options.songs, database: sweepOption("--database") }, log)
  } else {
    await main()
  }
  await cleanup()
  process.exit(0)
} catch (error) {
  console.error(`bench: failed: ${error instanceof Error ? error.message : String(error)}`)
  for (const server of servers) {
    const output = server.output().trim()
    if (output !== "") console.error(`--- ${server.name} output (tail) ---\n${output.slice(-2000)}`)
  }
  await cleanup()
  process.exit(1)
}
