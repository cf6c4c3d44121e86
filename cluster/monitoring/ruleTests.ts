/**
 * `promtool test rules` unit tests of every alert (deploy/monitoring/tests/catalogue-api.test.yml is
 * written from these): for each, series that make it fire and series that must leave it silent. The
 * input series are the agreed metric names as a replica exports them; what fires is checked with
 * its labels and its annotations, rendered from the alert's own text.
 */
import { ALERTS, DEFAULT_RUNBOOK_BASE, JOB, runbookAnchor } from "./rules.js"
import { toYaml } from "./yaml.js"

interface InputSeries {
  readonly series: string
  readonly values: string
}

interface Scenario {
  readonly alert: string
  readonly name: string
  /** between the samples of `values` */
  readonly interval: string
  /** between rule evaluations: 1 m, or 5 m for scenarios a day long (each step evaluates every rule) */
  readonly evaluation?: "5m"
  readonly input: ReadonlyArray<InputSeries>
  readonly evalTime: string
  /** the labels of each alert expected to fire then (beside alertname and severity); none: silent */
  readonly firing: ReadonlyArray<Readonly<Record<string, string>>>
}

const labelText = (labels: Readonly<Record<string, string>>) =>
  `{${Object.entries(labels).map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(",")}}`

const R1 = "replica1:9464"
const R2 = "replica2:9464"
const at = (instance: string) => ({ job: JOB, instance })

/** A counter growing by `perStep` at each of `steps` samples after its first. */
const growing = (perStep: number, steps: number) => `0+${perStep}x${steps}`

/** The request count of one route and status on one replica. */
const answered = (status: number, options: { readonly route?: string; readonly instance?: string } = {}) =>
  `http_server_request_duration_seconds_count${labelText({
    ...at(options.instance ?? R1),
    http_request_method: "GET",
    url_scheme: "http",
    http_route: options.route ?? "/v1/songs",
    http_response_status_code: String(status),
    ...(status >= 500 ? { error_type: String(status) } : {})
  })}`

/** One route's duration buckets, each growing by its cumulative count a minute; `total` also feeds `_count`. */
const latency = (route: string, perMinuteAtOrBelow: Readonly<Record<string, number>>, total: number, minutes: number): Array<InputSeries> => {
  const labels = { ...at(R1), http_request_method: "GET", url_scheme: "http", http_route: route, http_response_status_code: "200" }
  return [
    ...Object.entries({ ...perMinuteAtOrBelow, "+Inf": total }).map(([le, perMinute]) => ({
      series: `http_server_request_duration_seconds_bucket${labelText({ ...labels, le })}`,
      values: growing(perMinute, minutes)
    })),
    { series: `http_server_request_duration_seconds_count${labelText(labels)}`, values: growing(total, minutes) }
  ]
}

const gauge = (name: string, instance: string, values: string) => ({ series: `${name}${labelText(at(instance))}`, values })

const MIB = 1024 * 1024

export const SCENARIOS: ReadonlyArray<Scenario> = [
  {
    alert: "CatalogueErrorBudgetBurnFast",
    name: "2% of the answers that are not 4xx are 5xx for an hour (4xx, however many, do not dilute it)",
    interval: "1m",
    input: [
      { series: answered(200), values: growing(600, 90) },
      { series: answered(404), values: growing(60_000, 90) },
      { series: answered(503), values: growing(12, 90) }
    ],
    evalTime: "70m",
    firing: [{ job: JOB }]
  },
  {
    alert: "CatalogueErrorBudgetBurnFast",
    name: "0.5% 5xx, and readiness 503s that are not answers to clients: silent",
    interval: "1m",
    input: [
      { series: answered(200), values: growing(600, 420) },
      { series: answered(503), values: growing(3, 420) },
      { series: answered(503, { route: "/v1/health/ready" }), values: growing(120, 420) }
    ],
    evalTime: "7h",
    firing: []
  },
  {
    alert: "CatalogueErrorBudgetBurnSlow",
    name: "0.4% 5xx for a day: over 3 times the budget",
    interval: "5m",
    evaluation: "5m",
    input: [
      { series: answered(200), values: growing(3000, 312) },
      { series: answered(500), values: growing(12, 312) }
    ],
    evalTime: "25h",
    firing: [{ job: JOB }]
  },
  {
    alert: "CatalogueErrorBudgetBurnSlow",
    name: "0.5% 5xx for a day that ended 7 hours ago: the short windows say it is over",
    interval: "5m",
    evaluation: "5m",
    input: [
      { series: answered(200), values: growing(3000, 372) },
      { series: answered(500), values: `${growing(15, 288)} 4320+0x84` }
    ],
    evalTime: "31h",
    firing: []
  },
  {
    alert: "CatalogueRouteLatencyHigh",
    name: "a fifth of /v1/search's answers between 50 and 100 ms at 10 per second",
    interval: "1m",
    input: latency("/v1/search", { "0.025": 300, "0.05": 480, "0.1": 600 }, 600, 30),
    evalTime: "20m",
    firing: [{ job: JOB, http_route: "/v1/search", quantile: "0.99" }]
  },
  {
    alert: "CatalogueRouteLatencyHigh",
    name: "p99 under 50 ms: silent",
    interval: "1m",
    input: latency("/v1/search", { "0.025": 597, "0.05": 600, "0.1": 600 }, 600, 30),
    evalTime: "20m",
    firing: []
  },
  {
    alert: "CatalogueRouteLatencyHigh",
    name: "slow, but half a request a second: too few to judge, silent",
    interval: "1m",
    input: latency("/v1/search", { "0.025": 15, "0.05": 24, "0.1": 30 }, 30, 30),
    evalTime: "20m",
    firing: []
  },
  {
    alert: "CatalogueDatabaseUnavailable",
    name: "replica1 answers 503 for its database; replica2 does not",
    interval: "15s",
    input: [
      gauge("catalogue_database_unavailable_total", R1, "0+5x60"),
      gauge("catalogue_database_unavailable_total", R2, "0+0x60")
    ],
    evalTime: "10m",
    firing: [at(R1)]
  },
  {
    alert: "CatalogueDatabaseUnavailable",
    name: "out of the balancer's rotation, only its readiness check still says 503",
    interval: "15s",
    input: [
      gauge("catalogue_database_unavailable_total", R1, "0+0x60"),
      { series: answered(503, { route: "/v1/health/ready" }), values: "0+30x60" }
    ],
    evalTime: "10m",
    firing: [at(R1)]
  },
  {
    alert: "CatalogueDatabaseUnavailable",
    name: "a few 503s in one moment (a standby restarting): silent",
    interval: "15s",
    input: [gauge("catalogue_database_unavailable_total", R1, "0+0x8 4+0x51")],
    evalTime: "5m",
    firing: []
  },
  {
    alert: "CatalogueRateLimitRedisFallback",
    name: "Redis away for 10 minutes",
    interval: "1m",
    input: [gauge("catalogue_rate_limit_redis_fallback", R2, "0 1+0x10")],
    evalTime: "6m",
    firing: [at(R2)]
  },
  {
    alert: "CatalogueRateLimitRedisFallback",
    name: "Redis back within a minute: silent",
    interval: "1m",
    input: [gauge("catalogue_rate_limit_redis_fallback", R2, "0 1 0+0x10")],
    evalTime: "6m",
    firing: []
  },
  {
    alert: "CatalogueReplayLagHigh",
    name: "a standby a minute behind for 10 minutes",
    interval: "1m",
    input: [gauge("catalogue_database_replay_lag_seconds", R1, "60+0x10")],
    evalTime: "8m",
    firing: [at(R1)]
  },
  {
    alert: "CatalogueReplayLagHigh",
    name: "45 s behind for 2 minutes, otherwise 1 s: silent",
    interval: "1m",
    input: [gauge("catalogue_database_replay_lag_seconds", R1, "1 1 45 45 1+0x8")],
    evalTime: "8m",
    firing: []
  },
  {
    alert: "CatalogueReplicaDown",
    name: "replica2's metrics port does not answer",
    interval: "15s",
    input: [gauge("up", R1, "1+0x40"), gauge("up", R2, "0+0x40")],
    evalTime: "5m",
    firing: [at(R2)]
  },
  {
    alert: "CatalogueReplicaDown",
    name: "another job's target down: silent",
    interval: "15s",
    input: [gauge("up", R1, "1+0x40"), { series: `up{job="node",instance="${R2}"}`, values: "0+0x40" }],
    evalTime: "5m",
    firing: []
  },
  {
    alert: "CatalogueMemoryNearLimit",
    name: "a JS heap of 120 MiB against a 128 MiB limit for 20 minutes, collections or not",
    interval: "1m",
    input: [gauge("catalogue_js_heap_used_bytes", R1, `${120 * MIB}+0x20`), gauge("catalogue_memory_limit_bytes", R1, `${128 * MIB}+0x20`)],
    evalTime: "16m",
    firing: [at(R1)]
  },
  {
    alert: "CatalogueMemoryNearLimit",
    name: "a heap that peaks at the limit and drops to 50 MiB after each collection (the guard at work): silent",
    interval: "1m",
    input: [
      gauge("catalogue_js_heap_used_bytes", R1, Array.from({ length: 21 }, (_, minute) => (minute % 2 === 0 ? 125 : 50) * MIB).join(" ")),
      gauge("catalogue_memory_limit_bytes", R1, `${128 * MIB}+0x20`)
    ],
    evalTime: "16m",
    firing: []
  },
  {
    alert: "CatalogueMemoryNearLimit",
    name: "no limit set (MEMORY_LIMIT_MIB=0): silent",
    interval: "1m",
    input: [gauge("catalogue_js_heap_used_bytes", R1, `${350 * MIB}+0x20`), gauge("catalogue_memory_limit_bytes", R1, "0+0x20")],
    evalTime: "16m",
    firing: []
  }
]

/** An alert's text with `{{ $labels.name }}` filled in as Prometheus renders it. */
const render = (template: string, labels: Readonly<Record<string, string>>) =>
  template.replace(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, name: string) => labels[name] ?? "")

const expected = (scenario: Scenario, runbookBase: string) => {
  const alert = ALERTS.find((candidate) => candidate.alert === scenario.alert)
  if (alert === undefined) throw new Error(`no alert ${scenario.alert}`)
  return scenario.firing.map((labels) => ({
    exp_labels: { severity: alert.severity, ...labels },
    exp_annotations: {
      summary: render(alert.summary, labels),
      description: render(alert.description, labels),
      runbook_url: `${runbookBase}#${runbookAnchor(alert.alert)}`
    }
  }))
}

const HEADER = [
  "promtool test rules: every alert of the catalogue API, firing and silent.",
  "Written by cluster/monitoring/ruleTests.ts (bun cluster/deployFiles.ts)."
]

const testFile = (scenarios: ReadonlyArray<Scenario>, evaluation: string, ruleFile: string, runbookBase: string) =>
  toYaml(
    {
      rule_files: [ruleFile],
      evaluation_interval: evaluation,
      tests: scenarios.map((scenario) => ({
        name: `${scenario.alert}: ${scenario.name}`,
        interval: scenario.interval,
        input_series: scenario.input.map((input) => ({ series: input.series, values: input.values })),
        alert_rule_test: [{ eval_time: scenario.evalTime, alertname: scenario.alert, exp_alerts: expected(scenario, runbookBase) }]
      }))
    },
    HEADER
  )

/**
 * The unit-test files by name, reading the rules at `ruleFile` (relative to them): the scenarios a
 * day long in a file of their own, evaluated every 5 minutes (every minute they take 30 s).
 */
export const ruleTestFiles = (ruleFile: string, runbookBase = DEFAULT_RUNBOOK_BASE): Record<string, string> => ({
  "catalogue-api.test.yml": testFile(SCENARIOS.filter((scenario) => scenario.evaluation === undefined), "1m", ruleFile, runbookBase),
  "catalogue-api.days.test.yml": testFile(SCENARIOS.filter((scenario) => scenario.evaluation === "5m"), "5m", ruleFile, runbookBase)
})
