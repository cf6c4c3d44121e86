/**
 * `bun test/bench/sql-clients.ts [--songs N] [--database NAME] [--rounds R] [--seconds S] [--warmup S] [--connections C]`
 *
 * The SQL client spike: the bench's song detail and list pages (first and deep), the service's
 * own statements (./statements.ts), answered by one hand-written server (Bun.serve, ./baseline.ts)
 * over four clients, in interleaved rounds with wrk as the load bench runs them:
 *
 * - `pg prepared`: a `pg` pool with named prepared statements, no Effect (the load bench's baseline);
 * - `runner`: an Effect `SqlClient` over the service's own query path (`pg` + src/Database/Runner.ts);
 * - `PgClient`: `@effect/sql-pg`'s own wire client (its prepared-statement cache);
 * - `PgClient multiplex`: the same, statements of several fibers pipelined on one connection.
 *
 * Each answers the service's bytes (checked first, or no measurement). Prints medians over rounds
 * of req/s, p99 and CPU per request, and each client against `runner` in the same round. Measure
 * on an idle machine; the figures are for test/bench/RESULTS.md. Defaults: the load bench's
 * (100,000 songs in `catalogue_bench`, 5 rounds of 10 s, 50 connections).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Driver } from "./baseline.js"
import { ensureCatalogue, queryColumn } from "./catalogue.js"
import { cpuSeconds, freePort, type ServerProcess, startServer } from "./processes.js"
import { captureStatements, LIST_LIMIT } from "./statements.js"
import { ensureWrk, runWrk, type WrkResult } from "./wrk.js"

const argv = process.argv.slice(2)
const numberOption = (flag: string, fallback: number) => {
  const index = argv.indexOf(flag)
  if (index === -1) return fallback
  const parsed = Number(argv[index + 1])
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive number`)
  return parsed
}
const databaseIndex = argv.indexOf("--database")
const options = {
  songs: numberOption("--songs", 100_000),
  database: (databaseIndex === -1 ? undefined : argv[databaseIndex + 1]) ?? "catalogue_bench",
  rounds: numberOption("--rounds", 5),
  seconds: numberOption("--seconds", 10),
  warmupSeconds: numberOption("--warmup", 2),
  connections: numberOption("--connections", 50)
}
const log = (line: string) => console.error(`sql-clients: ${line}`)
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const CLIENTS: ReadonlyArray<{ readonly driver: Driver; readonly name: string }> = [
  { driver: "pg", name: "pg prepared" },
  { driver: "runner", name: "runner" },
  { driver: "pgclient", name: "PgClient" },
  { driver: "pgclient-multiplex", name: "PgClient multiplex" }
]

const servers: Array<ServerProcess> = []
const workDir = mkdtempSync(join(tmpdir(), "catalogue-sql-clients-"))
const cleanup = async () => {
  await Promise.all(servers.map((server) => server.stop()))
  rmSync(workDir, { recursive: true, force: true })
}

const bodyOf = async (url: string) => {
  const response = await fetch(url, { headers: { "accept-encoding": "identity" } })
  const text = await response.text()
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text.slice(0, 200)}`)
  return text
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

interface Measured {
  readonly wrk: WrkResult
  readonly cpuPerRequestUs: number
}

const main = async () => {
  ensureWrk(log)
  const catalogue = await ensureCatalogue(serverUrl, options.database, options.songs, { quiet: false, log })
  const databaseUrl = catalogue.url

  // the service, for its cursors and the bytes every client must answer
  const servicePort = freePort()
  const service = await startServer(
    "service",
    ["bun", "--max-http-header-size=131072", "src/main.ts"],
    { DATABASE_URL: databaseUrl, PORT: String(servicePort), LOG_LEVEL: "warn", CACHE_TTL_SECONDS: "0", RATE_LIMIT_CAPACITY: "1000000000", RATE_LIMIT_MAX_IN_FLIGHT: "1000000" },
    servicePort
  )
  servers.push(service)
  const publicIds = await queryColumn(databaseUrl, "SELECT id AS v FROM public_songs ORDER BY id")
  const deep = Math.min(50_000, Math.floor(publicIds.length / 2))
  const cursors: Array<string> = []
  for (let i = 0; i < 5; i++) {
    const page = JSON.parse(await bodyOf(`${service.baseUrl}/v1/songs?limit=${LIST_LIMIT}&offset=${deep - LIST_LIMIT + i * LIST_LIMIT}`)) as {
      meta: { next_cursor: string }
    }
    cursors.push(page.meta.next_cursor)
  }
  const statementsFile = join(workDir, "statements.json")
  writeFileSync(statementsFile, JSON.stringify(await captureStatements(databaseUrl, Number(publicIds[0]), cursors[0]!)))

  const clients = await Promise.all(CLIENTS.map(async ({ driver, name }) => {
    const port = freePort()
    const server = await startServer(name, ["bun", join(import.meta.dir, "baseline.ts"), driver, String(port), statementsFile], { DATABASE_URL: databaseUrl }, port)
    servers.push(server)
    return server
  }))

  const detailPaths = publicIds.map((id) => `/v1/songs/${id}`)
  const samples = [
    ...Array.from({ length: 20 }, (_, i) => detailPaths[Math.floor((i * detailPaths.length) / 20)]!),
    `/v1/songs?limit=${LIST_LIMIT}`,
    ...cursors.map((cursor) => `/v1/songs?limit=${LIST_LIMIT}&cursor=${cursor}`)
  ]
  for (const path of samples) {
    const expected = await bodyOf(service.baseUrl + path)
    for (const client of clients) {
      const actual = await bodyOf(client.baseUrl + path)
      if (actual !== expected) throw new Error(`${client.name} answers other bytes than the service for ${path}:\n${expected.slice(0, 300)}\n${actual.slice(0, 300)}`)
    }
  }
  log(`byte-equal: ${samples.length} paths x ${clients.length} clients`)
  await service.stop()

  const listFile = (name: string, lines: ReadonlyArray<string>) => {
    const file = join(workDir, `${name}.txt`)
    writeFileSync(file, lines.join("\n") + "\n")
    return file
  }
  const scenarios = [
    { name: "detail-uniform", list: listFile("detail", detailPaths) },
    { name: "list-first", list: listFile("first", [`/v1/songs?limit=${LIST_LIMIT}`]) },
    { name: "list-deep", list: listFile("deep", cursors.map((cursor) => `/v1/songs?limit=${LIST_LIMIT}&cursor=${cursor}`)) }
  ] as const

  const measure = async (server: ServerProcess, list: string, seconds: number): Promise<Measured> => {
    const before = cpuSeconds(server.pid)
    const wrk = await runWrk({ baseUrl: server.baseUrl, script: "uniform", listFile: list, connections: options.connections, threads: 2, seconds })
    if (wrk.non2xx > 0 || wrk.socketErrors > 0) log(`${server.name}: ${wrk.non2xx} non-2xx, ${wrk.socketErrors} socket errors`)
    return { wrk, cpuPerRequestUs: ((cpuSeconds(server.pid) - before) / Math.max(1, wrk.requests)) * 1e6 }
  }

  for (const scenario of scenarios) for (const client of clients) await measure(client, scenario.list, options.warmupSeconds)
  const rounds: Array<Record<string, Record<string, Measured>>> = []
  for (let round = 1; round <= options.rounds; round++) {
    log(`round ${round} of ${options.rounds}`)
    const byScenario: Record<string, Record<string, Measured>> = {}
    for (const scenario of scenarios) {
      byScenario[scenario.name] = {}
      for (const client of clients) byScenario[scenario.name]![client.name] = await measure(client, scenario.list, options.seconds)
    }
    rounds.push(byScenario)
  }

  const lines = [
    `SQL clients at ${publicIds.length} public songs: ${options.rounds} rounds of ${options.seconds} s, ${options.connections} connections (medians)`,
    "",
    "| scenario | client | req/s | p99 ms | CPU us/req | req/s vs runner | CPU/req vs runner |",
    "|---|---|---:|---:|---:|---:|---:|"
  ]
  for (const scenario of scenarios) {
    for (const client of clients) {
      const of = (figure: (m: Measured) => number) => median(rounds.map((round) => figure(round[scenario.name]![client.name]!)))
      const versusRunner = (figure: (m: Measured) => number) =>
        median(rounds.map((round) => figure(round[scenario.name]![client.name]!) / figure(round[scenario.name]!["runner"]!)))
      lines.push(
        `| ${scenario.name} | ${client.name} | ${of((m) => m.wrk.requestsPerSecond).toFixed(0)} | ${of((m) => m.wrk.p99Ms).toFixed(1)} | ` +
          `${of((m) => m.cpuPerRequestUs).toFixed(0)} | ${versusRunner((m) => m.wrk.requestsPerSecond).toFixed(2)}x | ` +
          `${versusRunner((m) => m.cpuPerRequestUs).toFixed(2)}x |`
      )
    }
  }
  console.log(lines.join("\n"))
}

await main().finally(cleanup)
