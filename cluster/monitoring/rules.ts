/**
 * The service's Prometheus rules; deploy/monitoring/rules/catalogue-api.rules.yml is written from
 * them (cluster/deployFiles.ts). Recording rules give the RED figures by route (request rate, error
 * ratio, latency quantiles) and the saturation figures; alerts cover the availability SLO with the
 * SRE workbook's multiwindow, multi-burn-rate alerts, p99 latency by route, the database away, the
 * rate limiter on its Redis fallback, standby replay lag, a replica not scraped and memory near its
 * limit. Each alert links the section of docs/operations.md that says what to do.
 *
 * Every window and `for:` is a number of seconds written out through `timeScale`: 1 for the recipe;
 * the cluster suite runs a copy with all of them shortened alike (docs/operations.md, "Alerts and
 * runbooks"). Recording rules keep their nominal names (`..._rate5m`) at any scale.
 */
import { type YamlValue, toYaml } from "./yaml.js"

/** The scrape job the rules and the dashboard read: deploy/monitoring/prometheus.yml names it. */
export const JOB = "catalogue-api"

/** Availability objective: this share of the answers that are not 4xx are not 5xx, over 30 days. */
export const SLO_OBJECTIVE = 0.999
export const ERROR_BUDGET = Math.round((1 - SLO_OBJECTIVE) * 1e9) / 1e9
/** The latency target of every route's p99. */
export const LATENCY_TARGET_SECONDS = 0.05
/** Below this many requests per second a route's p99 is a handful of requests: not judged. */
const LATENCY_MIN_RATE = 1
/** Replay lag a standby may show for a while: public answers are already up to 60 s old in caches. */
export const REPLAY_LAG_BOUND_SECONDS = 30
/**
 * The JS heap's share of MEMORY_LIMIT_MIB (the limit the memory guard keeps it under) it does not
 * drop below for 5 minutes, even right after the guard's collections: the live heap fills the limit.
 */
export const MEMORY_ALERT_SHARE = 0.9

const MINUTE = 60
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** Prometheus's duration text for a number of seconds, in the largest unit that divides it. */
export const promDuration = (seconds: number) => {
  const ms = Math.round(seconds * 1000)
  const unit = ([["d", DAY * 1000], ["h", HOUR * 1000], ["m", MINUTE * 1000], ["s", 1000]] as const).find(([, size]) => ms % size === 0)
  return unit === undefined ? `${ms}ms` : `${ms / unit[1]}${unit[0]}`
}

/** A selector of the job's series; matchers written without spaces (the suite's check of every rule relies on it). */
export const series = (name: string, ...matchers: ReadonlyArray<string>) => `${name}{${[`job="${JOB}"`, ...matchers].join(",")}}`

const NOT_HEALTH = `http_route!~"/v1/health.*"`
const requests = (...matchers: ReadonlyArray<string>) => series("http_server_request_duration_seconds_count", ...matchers)

/** The SLI's windows: those the burn-rate alerts read. */
const SLI_WINDOWS = [5 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 6 * HOUR, DAY, 3 * DAY]
export const sliRule = (window: number) => `job:catalogue_slo_errors_per_request:ratio_rate${promDuration(window)}`

/** The SRE workbook's pairs of windows and burn rates for a 30-day budget: 2% of it in an hour, 5% in 6 h; 10% in 3 days. */
const BURN_RATES = {
  fast: [{ long: HOUR, short: 5 * MINUTE, factor: 14.4 }, { long: 6 * HOUR, short: 30 * MINUTE, factor: 6 }],
  slow: [{ long: DAY, short: 2 * HOUR, factor: 3 }, { long: 3 * DAY, short: 6 * HOUR, factor: 1 }]
} as const

export interface RecordingRule {
  readonly record: string
  readonly expr: (window: (seconds: number) => string) => string
  readonly labels?: Readonly<Record<string, string>>
}

export interface AlertRule {
  readonly alert: string
  readonly expr: (window: (seconds: number) => string) => string
  readonly forSeconds: number
  readonly severity: "critical" | "warning"
  /** may name `{{ $labels.x }}` of the alert's labels; no value, so that a unit test can spell it */
  readonly summary: string
  readonly description: string
}

/** "0 when nothing failed" rather than no series: the numerator `or` zero times the denominator. */
const ratioOrZero = (part: string, whole: string) => `(\n  ${part}\n  or\n  0 * ${whole}\n)\n/\n${whole}`

const quantiles = [0.5, 0.9, 0.99]

const RED: ReadonlyArray<RecordingRule> = [
  {
    record: "instance_route_status:http_server_requests:rate5m",
    expr: (w) => `sum by (job, instance, http_route, http_response_status_code) (rate(${requests()}[${w(5 * MINUTE)}]))`
  },
  {
    record: "instance_route:http_server_requests:rate5m",
    expr: () => "sum without (http_response_status_code) (instance_route_status:http_server_requests:rate5m)"
  },
  {
    record: "route:http_server_requests:rate5m",
    expr: () => "sum by (job, http_route) (instance_route:http_server_requests:rate5m)"
  },
  {
    record: "instance_route:http_server_request_errors:ratio_rate5m",
    expr: () =>
      ratioOrZero(
        `sum by (job, instance, http_route) (instance_route_status:http_server_requests:rate5m{http_response_status_code=~"5.."})`,
        "instance_route:http_server_requests:rate5m"
      )
  },
  {
    record: "instance_route_le:http_server_request_duration_seconds_bucket:rate5m",
    expr: (w) => `sum by (job, instance, http_route, le) (rate(${series("http_server_request_duration_seconds_bucket")}[${w(5 * MINUTE)}]))`
  },
  ...quantiles.map((quantile): RecordingRule => ({
    record: "route:http_server_request_duration_seconds:histogram_quantile5m",
    expr: () => `histogram_quantile(${quantile}, sum by (job, http_route, le) (instance_route_le:http_server_request_duration_seconds_bucket:rate5m))`,
    labels: { quantile: String(quantile) }
  }))
]

const SATURATION: ReadonlyArray<RecordingRule> = [
  {
    record: "instance:http_server_active_requests:sum",
    expr: () => `sum by (job, instance) (${series("http_server_active_requests")})`
  },
  {
    record: "instance_pool:db_client_connection_usage:ratio",
    expr: () => {
      const byPool = "sum by (job, instance, db_client_connection_pool_name)"
      return `${byPool} (${series("db_client_connection_count", `db_client_connection_state="used"`)})\n/\n${byPool} (${series("db_client_connection_max")})`
    }
  },
  {
    record: "instance:db_client_connection_wait_time_seconds:histogram_quantile5m",
    expr: (w) => `histogram_quantile(0.99, sum by (job, instance, le) (rate(${series("db_client_connection_wait_time_seconds_bucket")}[${w(5 * MINUTE)}])))`,
    labels: { quantile: "0.99" }
  },
  {
    record: "instance:catalogue_cache_hits:ratio_rate5m",
    expr: (w) =>
      ratioOrZero(
        `sum by (job, instance) (rate(${series("catalogue_cache_requests_total", `cache_result="hit"`)}[${w(5 * MINUTE)}]))`,
        `sum by (job, instance) (rate(${series("catalogue_cache_requests_total")}[${w(5 * MINUTE)}]))`
      )
  },
  {
    record: "instance:catalogue_js_heap_used_bytes:ratio_limit",
    expr: () => `${series("catalogue_js_heap_used_bytes")}\n/ on (job, instance)\n(${series("catalogue_memory_limit_bytes")} > 0)`
  }
]

const SLO: ReadonlyArray<RecordingRule> = SLI_WINDOWS.map((window) => ({
  record: sliRule(window),
  expr: (w) =>
    ratioOrZero(
      `sum by (job) (rate(${requests(NOT_HEALTH, `http_response_status_code=~"5.."`)}[${w(window)}]))`,
      `sum by (job) (rate(${requests(NOT_HEALTH, `http_response_status_code!~"4.."`)}[${w(window)}]))`
    )
}))

/** Either pair of windows over its burn rate: the long one says it matters, the short one that it is still going on. */
const burning = (pairs: ReadonlyArray<{ readonly long: number; readonly short: number; readonly factor: number }>) =>
  pairs
    .map(({ long, short, factor }) =>
      `(\n  ${sliRule(long)} > (${factor} * ${ERROR_BUDGET})\n  and\n  ${sliRule(short)} > (${factor} * ${ERROR_BUDGET})\n)`
    )
    .join("\nor\n")

const percent = (ratio: number) => `${Math.round(ratio * 10000) / 100}%`

export const ALERTS: ReadonlyArray<AlertRule> = [
  {
    alert: "CatalogueErrorBudgetBurnFast",
    expr: () => burning(BURN_RATES.fast),
    forSeconds: 2 * MINUTE,
    severity: "critical",
    summary: "The catalogue API is spending its error budget fast.",
    description: `More than ${percent(14.4 * ERROR_BUDGET)} of the answers that are not 4xx were 5xx over the last hour and 5 minutes ` +
      `(14.4 times the budget of the ${percent(SLO_OBJECTIVE)} SLO: 2% of 30 days' budget an hour), or more than ` +
      `${percent(6 * ERROR_BUDGET)} over 6 hours and 30 minutes.`
  },
  {
    alert: "CatalogueErrorBudgetBurnSlow",
    expr: () => burning(BURN_RATES.slow),
    forSeconds: 15 * MINUTE,
    severity: "warning",
    summary: "The catalogue API is spending its error budget faster than it lasts.",
    description: `More than ${percent(3 * ERROR_BUDGET)} of the answers that are not 4xx were 5xx over the last day and 2 hours, ` +
      `or more than ${percent(ERROR_BUDGET)} over 3 days and 6 hours: at this pace the ${percent(SLO_OBJECTIVE)} SLO's 30-day budget runs out.`
  },
  {
    alert: "CatalogueRouteLatencyHigh",
    expr: () =>
      `route:http_server_request_duration_seconds:histogram_quantile5m{quantile="0.99"} > ${LATENCY_TARGET_SECONDS}\n` +
      `and on (job, http_route)\nroute:http_server_requests:rate5m > ${LATENCY_MIN_RATE}`,
    forSeconds: 10 * MINUTE,
    severity: "warning",
    summary: `p99 latency of {{ $labels.http_route }} is over ${LATENCY_TARGET_SECONDS * 1000} ms.`,
    description: `The 99th percentile of {{ $labels.http_route }}'s answers, over all replicas, has been above ` +
      `${LATENCY_TARGET_SECONDS * 1000} ms for 10 minutes (routes with more than ${LATENCY_MIN_RATE} request a second).`
  },
  {
    alert: "CatalogueDatabaseUnavailable",
    expr: (w) =>
      `sum by (job, instance) (rate(${series("catalogue_database_unavailable_total")}[${w(MINUTE)}])) > 0\nor\n` +
      `sum by (job, instance) (rate(${requests(`http_route="/v1/health/ready"`, `http_response_status_code="503"`)}[${w(MINUTE)}])) > 0`,
    forSeconds: 2 * MINUTE,
    severity: "critical",
    summary: "{{ $labels.instance }} cannot reach its database.",
    description: "{{ $labels.instance }} has answered 503 for 2 minutes because its database was away or did not answer in time " +
      "(requests, or its readiness check, which the balancer keeps asking after it took the replica out)."
  },
  {
    alert: "CatalogueRateLimitRedisFallback",
    expr: () => `max by (job, instance) (${series("catalogue_rate_limit_redis_fallback")}) > 0`,
    forSeconds: 2 * MINUTE,
    severity: "warning",
    summary: "{{ $labels.instance }} limits clients in memory: Redis does not answer.",
    description: "For 2 minutes {{ $labels.instance }} has kept its rate-limit buckets in its own memory because RATE_LIMIT_REDIS_URL " +
      "does not answer: each replica now allows a client the whole limit."
  },
  {
    alert: "CatalogueReplayLagHigh",
    expr: () => `max by (job, instance) (${series("catalogue_database_replay_lag_seconds")}) > ${REPLAY_LAG_BOUND_SECONDS}`,
    forSeconds: 5 * MINUTE,
    severity: "warning",
    summary: `The standby {{ $labels.instance }} reads is more than ${REPLAY_LAG_BOUND_SECONDS} s behind the primary.`,
    description: `For 5 minutes the hot standby that {{ $labels.instance }} reads has replayed the primary's changes more than ` +
      `${REPLAY_LAG_BOUND_SECONDS} s late: its answers are that old.`
  },
  {
    alert: "CatalogueReplicaDown",
    expr: () => `${series("up")} == 0`,
    forSeconds: MINUTE,
    severity: "warning",
    summary: "{{ $labels.instance }} is not scraped.",
    description: "Prometheus has not been able to read {{ $labels.instance }}'s metrics for a minute: the replica is down, " +
      "or its METRICS_PORT is not reachable from Prometheus."
  },
  {
    alert: "CatalogueMemoryNearLimit",
    expr: (w) => `min_over_time(instance:catalogue_js_heap_used_bytes:ratio_limit[${w(5 * MINUTE)}]) > ${MEMORY_ALERT_SHARE}`,
    forSeconds: 10 * MINUTE,
    severity: "warning",
    summary: "The JS heap of {{ $labels.instance }} stays at its limit.",
    description: `For 10 minutes the JS heap of {{ $labels.instance }} has not dropped below ${percent(MEMORY_ALERT_SHARE)} of ` +
      "MEMORY_LIMIT_MIB, even right after the full collections the limit forces: the live heap fills the limit, the guard " +
      "collects every second for nothing, and the process grows toward its container's limit."
  }
]

/** The section of docs/operations.md an alert links: its own heading under "Alerts and runbooks". */
export const runbookAnchor = (alert: string) => alert.toLowerCase()
export const DEFAULT_RUNBOOK_BASE = "docs/operations.md"

export interface RuleOptions {
  /** 1 for the recipe; the suite's copy shortens every window and `for:` by the same factor */
  readonly timeScale: number
  /** where docs/operations.md is published: each alert's runbook_url is this with the alert's anchor */
  readonly runbookBase: string
}

const recording = (rule: RecordingRule, window: (seconds: number) => string) => ({
  record: rule.record,
  expr: rule.expr(window),
  labels: rule.labels
})

const alerting = (rule: AlertRule, window: (seconds: number) => string, runbookBase: string) => ({
  alert: rule.alert,
  expr: rule.expr(window),
  for: window(rule.forSeconds),
  labels: { severity: rule.severity },
  annotations: { summary: rule.summary, description: rule.description, runbook_url: `${runbookBase}#${runbookAnchor(rule.alert)}` }
})

/** The rule groups, as Prometheus's rule files hold them. */
export const ruleGroups = (options: RuleOptions) => {
  const window = (seconds: number) => promDuration(seconds * options.timeScale)
  return {
    groups: [
      { name: "catalogue-api.red", rules: RED.map((rule) => recording(rule, window)) },
      { name: "catalogue-api.saturation", rules: SATURATION.map((rule) => recording(rule, window)) },
      { name: "catalogue-api.slo", rules: SLO.map((rule) => recording(rule, window)) },
      { name: "catalogue-api.alerts", rules: ALERTS.map((rule) => alerting(rule, window, options.runbookBase)) }
    ]
  }
}

/** Every recording rule's name (each once). */
export const RECORDED = [...new Set([...RED, ...SATURATION, ...SLO].map((rule) => rule.record))]

export const rulesFile = (options: RuleOptions) =>
  toYaml(ruleGroups(options) as unknown as Record<string, YamlValue>, [
    "The catalogue API's recording and alerting rules: written by cluster/monitoring/rules.ts",
    "(bun cluster/deployFiles.ts); docs/operations.md, \"Dashboards\" and \"Alerts and runbooks\"."
  ])
