/** The bench's tables: medians of each figure, medians of same-round ratios, and the targets of issue 7. */
import type { WrkResult } from "./wrk.js"

export type ScenarioName =
  | "detail-uniform"
  | "detail-zipf"
  | "list-first"
  | "list-deep"
  | "search"
  | "search-1"
  | "flood-429"
export type RoleName = "service" | "service-cached" | "service-deployed" | "service-limited" | "bunsql" | "pg" | "httpapi"

export interface Measurement {
  readonly wrk: WrkResult
  readonly cpuPerRequestUs: number
  readonly peakRssMiB: number
}

export interface Results {
  readonly rounds: Array<Partial<Record<ScenarioName, Partial<Record<RoleName, Measurement>>>>>
}

export interface ReportContext {
  readonly date: string
  readonly smoke: boolean
  readonly machine: {
    readonly cpus: number
    readonly cpuModel: string
    readonly memoryGiB: number
    readonly kernel: string
    readonly bun: string
    readonly postgres: string
    readonly pgPackage: string
    readonly wrk: string
  }
  readonly settings: {
    readonly songs: number
    readonly publicSongs: number
    readonly deepOffset: number
    readonly rounds: number
    readonly seconds: number
    readonly connections: number
    readonly threads: number
    readonly searchQueries: number
    readonly reusedCatalogue: boolean
  }
  readonly names: Record<RoleName, string>
}

const SCENARIOS: ReadonlyArray<{ readonly name: ScenarioName; readonly title: string }> = [
  { name: "detail-uniform", title: "song detail, uniform random ids, response cache off" },
  {
    name: "detail-zipf",
    title: "song detail, Zipf ids (s = 1), response cache on (service only) and warm (5 s of the same traffic first); " +
      "the service also as deployed: buckets in Redis, traces (a tenth of the requests) and metrics over OTLP to a collector in the bench's process"
  },
  { name: "list-first", title: "/v1/songs?limit=20, page 1" },
  { name: "list-deep", title: "/v1/songs?limit=20&cursor=..., 50,000 rows deep" },
  { name: "search", title: "/v1/search, mixed queries, all seven types, cache off" },
  { name: "search-1", title: "the same searches from one connection (one client's latency)" },
  { name: "flood-429", title: "one client past its bucket (360 per 60 s): 429s" }
]

const ROLES: ReadonlyArray<RoleName> = ["service", "service-cached", "service-deployed", "service-limited", "bunsql", "pg", "httpapi"]
const isService = (role: RoleName) => role.startsWith("service")

const median = (values: ReadonlyArray<number>) => {
  const sorted = values.filter(Number.isFinite).toSorted((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

type Figure = (m: Measurement) => number
const FIGURES: ReadonlyArray<{ readonly label: string; readonly of: Figure; readonly digits: number }> = [
  { label: "req/s", of: (m) => m.wrk.requestsPerSecond, digits: 0 },
  { label: "p50 ms", of: (m) => m.wrk.p50Ms, digits: 2 },
  { label: "p95 ms", of: (m) => m.wrk.p95Ms, digits: 2 },
  { label: "p99 ms", of: (m) => m.wrk.p99Ms, digits: 2 },
  { label: "CPU us/req", of: (m) => m.cpuPerRequestUs, digits: 0 },
  { label: "peak RSS MiB", of: (m) => m.peakRssMiB, digits: 0 },
  { label: "non-2xx", of: (m) => m.wrk.non2xx + m.wrk.socketErrors, digits: 0 }
]

const measurementsOf = (results: Results, scenario: ScenarioName, role: RoleName) =>
  results.rounds.map((round) => round[scenario]?.[role])

const medianOf = (results: Results, scenario: ScenarioName, role: RoleName, figure: Figure) =>
  median(measurementsOf(results, scenario, role).flatMap((m) => (m === undefined ? [] : [figure(m)])))

/** The median over rounds of figure(a) / figure(b), both measured in the same round. */
const medianRatio = (results: Results, scenarioA: ScenarioName, roleA: RoleName, scenarioB: ScenarioName, roleB: RoleName, figure: Figure) =>
  median(
    results.rounds.flatMap((round) => {
      const a = round[scenarioA]?.[roleA]
      const b = round[scenarioB]?.[roleB]
      return a === undefined || b === undefined ? [] : [figure(a) / figure(b)]
    })
  )

const rolesOf = (results: Results, scenario: ScenarioName) =>
  ROLES.filter((role) => results.rounds.some((round) => round[scenario]?.[role] !== undefined))

const serviceRoleOf = (results: Results, scenario: ScenarioName) => rolesOf(results, scenario).find(isService)

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "-")
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : "-")

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i < 2 ? "---" : "---:")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`)
  ].join("\n")

export const renderReport = (results: Results, context: ReportContext) => {
  const name = (role: RoleName) => context.names[role]

  const figuresTable = table(
    ["scenario", "server", ...FIGURES.map((f) => f.label)],
    SCENARIOS.flatMap(({ name: scenario }) =>
      rolesOf(results, scenario).map((role) => [
        scenario,
        name(role),
        ...FIGURES.map((f) => fixed(medianOf(results, scenario, role, f.of), f.digits))
      ])
    )
  )

  const ratioFigures = FIGURES.filter((f) => f.label !== "p95 ms" && f.label !== "non-2xx")
  const ratiosTable = table(
    ["scenario", "service vs", ...ratioFigures.map((f) => f.label)],
    SCENARIOS.flatMap(({ name: scenario }) => {
      const service = serviceRoleOf(results, scenario)
      if (service === undefined) return []
      return (["bunsql", "pg", "httpapi"] as const)
        .filter((baseline) => rolesOf(results, scenario).includes(baseline))
        .map((baseline) => [
          scenario,
          name(baseline),
          ...ratioFigures.map((f) => ratio(medianRatio(results, scenario, service, scenario, baseline, f.of)))
        ])
    })
  )

  /** Cost of a deep page over page 1: mean latency at the same concurrency = inverse throughput. */
  const deepOverFirst = (role: RoleName) =>
    medianRatio(results, "list-first", role, "list-deep", role, (m) => m.wrk.requestsPerSecond)
  const deepTable = table(
    ["server", "deep / page 1 (time per request)", "deep / page 1 (p50)"],
    rolesOf(results, "list-deep").map((role) => [
      name(role),
      ratio(deepOverFirst(role)),
      ratio(medianRatio(results, "list-deep", role, "list-first", role, (m) => m.wrk.p50Ms))
    ])
  )

  /** The p99 target, scenario by scenario, with the fastest baseline's p99 of the same traffic beside it. */
  const p99Targets = SCENARIOS.flatMap(({ name: scenario }) => {
    const role = scenario === "search-1" ? undefined : serviceRoleOf(results, scenario)
    if (role === undefined) return []
    const value = medianOf(results, scenario, role, (m) => m.wrk.p99Ms)
    const baselines = rolesOf(results, scenario)
      .filter((other) => !isService(other))
      .map((other) => `${name(other)} ${fixed(medianOf(results, scenario, other, (m) => m.wrk.p99Ms), 0)} ms`)
    return [{
      what: `p99 at ${context.settings.connections} connections: ${scenario}${baselines.length > 0 ? ` (same traffic: ${baselines.join(", ")})` : ""}`,
      target: "<= 50 ms",
      value,
      met: value <= 50,
      shown: `${fixed(value, 1)} ms`
    }]
  })
  const servicePeakRss = Math.max(
    ...results.rounds.flatMap((round) =>
      Object.values(round).flatMap((byRole) =>
        Object.entries(byRole ?? {}).flatMap(([role, m]) => (isService(role as RoleName) && m !== undefined ? [m.peakRssMiB] : []))
      )
    )
  )
  const targets: ReadonlyArray<{ readonly what: string; readonly target: string; readonly value: number; readonly met: boolean; readonly shown: string }> = [
    (() => {
      const value = medianRatio(results, "detail-uniform", "service", "detail-uniform", "pg", (m) => m.wrk.requestsPerSecond)
      return { what: "uncached song detail, req/s vs pg prepared", target: ">= 0.5x", value, met: value >= 0.5, shown: ratio(value) }
    })(),
    (() => {
      const value = medianRatio(results, "detail-zipf", "service-cached", "detail-zipf", "bunsql", (m) => m.wrk.requestsPerSecond)
      return { what: "Zipf song detail, req/s vs Bun.SQL", target: ">= 1.5x", value, met: value >= 1.5, shown: ratio(value) }
    })(),
    (() => {
      const value = medianRatio(results, "detail-zipf", "service-deployed", "detail-zipf", "service-cached", (m) => m.wrk.requestsPerSecond)
      return { what: "Zipf song detail as deployed (Redis, OTLP 0.1), req/s vs without them", target: ">= 0.9x", value, met: value >= 0.9, shown: ratio(value) }
    })(),
    (() => {
      const value = medianRatio(results, "detail-zipf", "service-deployed", "detail-zipf", "bunsql", (m) => m.wrk.requestsPerSecond)
      return { what: "Zipf song detail as deployed (Redis, OTLP 0.1), req/s vs Bun.SQL", target: ">= 2x", value, met: value >= 2, shown: ratio(value) }
    })(),
    ...p99Targets,
    (() => {
      const value = deepOverFirst("service")
      return { what: `cursor page ${context.settings.deepOffset.toLocaleString("en")} rows deep vs page 1 (service)`, target: "<= 2x", value, met: value <= 2, shown: ratio(value) }
    })(),
    (() => {
      const value = medianOf(results, "search-1", "service", (m) => m.wrk.p95Ms)
      const saturated = medianOf(results, "search", "service", (m) => m.wrk.p95Ms)
      return {
        what: `search p95, one client (at ${context.settings.connections} connections: ${fixed(saturated, 0)} ms)`,
        target: "<= 30 ms",
        value,
        met: value <= 30,
        shown: `${fixed(value, 1)} ms`
      }
    })(),
    { what: "service peak RSS under load", target: "<= 300 MiB", value: servicePeakRss, met: servicePeakRss <= 300, shown: `${fixed(servicePeakRss, 0)} MiB` },
    (() => {
      const value = medianRatio(results, "search", "service", "detail-uniform", "service", (m) => m.wrk.requestsPerSecond)
      return { what: "search, req/s vs uncached song detail (issue 14)", target: ">= 0.5x", value, met: value >= 0.5, shown: ratio(value) }
    })(),
    ...(["list-first", "list-deep"] as const).flatMap((scenario) =>
      (["bunsql", "pg"] as const).map((baseline) => {
        const value = medianRatio(results, scenario, "service", scenario, baseline, (m) => m.wrk.requestsPerSecond)
        return { what: `${scenario}, req/s vs ${name(baseline)} (issue 14)`, target: ">= 0.9x", value, met: value >= 0.9, shown: ratio(value) }
      })
    )
  ]
  /** The stack's floor (baseline.ts httpapi): what the prescribed HTTP stack alone costs over the same reads. */
  const floorTable = table(
    ["scenario", "floor vs Bun.SQL, req/s", "floor vs pg prepared, req/s", "floor CPU us/req", "service vs floor, req/s"],
    SCENARIOS.flatMap(({ name: scenario }) => {
      const service = serviceRoleOf(results, scenario)
      if (service === undefined || !rolesOf(results, scenario).includes("httpapi")) return []
      const rps = (m: Measurement) => m.wrk.requestsPerSecond
      return [[
        scenario,
        ratio(medianRatio(results, scenario, "httpapi", scenario, "bunsql", rps)),
        ratio(medianRatio(results, scenario, "httpapi", scenario, "pg", rps)),
        fixed(medianOf(results, scenario, "httpapi", (m) => m.cpuPerRequestUs), 0),
        ratio(medianRatio(results, scenario, service, scenario, "httpapi", rps))
      ]]
    })
  )

  /** How far a missed target is: the factor the measured figure must improve by. */
  const gapOf = (t: (typeof targets)[number]) => {
    if (t.met || !Number.isFinite(t.value)) return t.met ? "" : "-"
    const wanted = Number(/[\d.]+/.exec(t.target)?.[0])
    const factor = t.target.startsWith(">=") ? wanted / t.value : t.value / wanted
    return `${factor.toFixed(2)}x short`
  }
  const targetsTable = table(
    ["target", "wanted", "measured", "met", "gap"],
    targets.map((t) => [t.what, t.target, t.shown, t.met ? "yes" : "**no**", gapOf(t)])
  )

  const m = context.machine
  const s = context.settings
  const facts = [
    `- date: ${context.date}`,
    `- machine: ${m.cpus} x ${m.cpuModel}, ${m.memoryGiB.toFixed(1)} GiB, ${m.kernel}`,
    `- software: Bun ${m.bun}, PostgreSQL ${m.postgres}, pg ${m.pgPackage}, ${m.wrk}`,
    `- catalogue: ${s.songs.toLocaleString("en")} songs (${s.publicSongs.toLocaleString("en")} public)${s.reusedCatalogue ? ", reused" : ", seeded by this run"}`,
    `- load: wrk, ${s.threads} threads, ${s.connections} connections, ${s.seconds} s per run, ${s.rounds} interleaved rounds; ${s.searchQueries} search queries`
  ].join("\n")

  const scenarioList = SCENARIOS.map(({ name: scenario, title }) => `- \`${scenario}\`: ${title}`).join("\n")

  const sections = [
    facts,
    "Figures (median over rounds; CPU is the server process's user + system time per request):",
    figuresTable,
    "Ratios of the service to each baseline (median of same-round ratios; req/s: higher is better, the rest: lower is better):",
    ratiosTable,
    "A deep cursor page against page 1 (same round):",
    deepTable,
    `The stack's floor: ${name("httpapi")} (a bare Effect 4 HttpApi, HttpRouter.toWebHandler under Bun.serve, over the same pg reads, nothing of the service's) against the hand-written baselines (same rounds):`,
    floorTable,
    "Targets (issues 7 and 14):",
    targetsTable,
    "Where the time goes and what was tried: [README.md, \"Where the time goes\"](README.md#where-the-time-goes)."
  ]
  const text = sections.join("\n\n")
  const markdown = [
    "# Benchmark results",
    "",
    "Written by `bun run bench` (see [README.md](README.md)); do not edit by hand. The machine is shared and",
    "noisy: absolute numbers are for the record, the same-round ratios are the result.",
    "",
    "Scenarios:",
    "",
    scenarioList,
    "",
    text,
    ""
  ].join("\n")
  return { text, markdown, targets }
}
