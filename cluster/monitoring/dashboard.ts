/**
 * The Grafana dashboard of the service (deploy/monitoring/grafana/dashboards/catalogue-api.json is
 * written from it, cluster/deployFiles.ts): the SLO, requests, errors and latency by route, and
 * the saturation figures, with variables for the data source, the instance and the route. Panels
 * read the recording rules of cluster/monitoring/rules.ts where one exists. docs/operations.md,
 * "Dashboards", says what each panel shows.
 */
import { ERROR_BUDGET, JOB, LATENCY_TARGET_SECONDS, REPLAY_LAG_BOUND_SECONDS, SLO_OBJECTIVE, sliRule } from "./rules.js"

export interface PanelTarget {
  readonly expr: string
  readonly legend: string
}

export interface Panel {
  readonly title: string
  readonly description: string
  readonly kind: "timeseries" | "stat"
  readonly unit: string
  readonly targets: ReadonlyArray<PanelTarget>
  /** a line (timeseries) or a colour step (stat) at this value */
  readonly threshold?: { readonly value: number; readonly above: "red" | "green" }
  readonly max?: number
}

export interface Row {
  readonly title: string
  readonly panels: ReadonlyArray<Panel>
}

const HOUR = 3600
const DAY = 24 * HOUR

/** The variables' matchers: `$instance` and `$route` are regular expressions (".*" for All). */
const onInstance = `job="${JOB}",instance=~"$instance"`
const onRoute = `${onInstance},http_route=~"$route"`

const quantileOfRoute = (quantile: number) =>
  `histogram_quantile(${quantile}, sum by (http_route, le) (instance_route_le:http_server_request_duration_seconds_bucket:rate5m{${onRoute}}))`

const byInstance = (expr: string, legend = "{{instance}}"): PanelTarget => ({ expr, legend })

export const ROWS: ReadonlyArray<Row> = [
  {
    title: `Service level: ${SLO_OBJECTIVE * 100}% of the answers that are not 4xx are not 5xx`,
    panels: [
      {
        title: `Availability, last hour (SLO ${SLO_OBJECTIVE * 100}%)`,
        description: "Share of the answers to clients (health checks left out) that were not 5xx, among those that were not 4xx.",
        kind: "stat",
        unit: "percentunit",
        targets: [{ expr: `1 - ${sliRule(HOUR)}{job="${JOB}"}`, legend: "availability" }],
        threshold: { value: SLO_OBJECTIVE, above: "green" }
      },
      {
        title: "Availability, last 3 days",
        description: "The same share over the longest window the burn-rate alerts read.",
        kind: "stat",
        unit: "percentunit",
        targets: [{ expr: `1 - ${sliRule(3 * DAY)}{job="${JOB}"}`, legend: "availability" }],
        threshold: { value: SLO_OBJECTIVE, above: "green" }
      },
      {
        title: "Error budget burn rate, last hour",
        description: "How many times faster than the budget allows the last hour spent it: 1 uses the 30-day budget in 30 days; " +
          "14.4 for an hour and 5 minutes pages (CatalogueErrorBudgetBurnFast).",
        kind: "stat",
        unit: "none",
        targets: [{ expr: `${sliRule(HOUR)}{job="${JOB}"} / ${ERROR_BUDGET}`, legend: "burn rate" }],
        threshold: { value: 1, above: "red" }
      },
      {
        title: "Replicas scraped",
        description: "Replicas whose metrics Prometheus reads now (up); one missing for a minute alerts (CatalogueReplicaDown).",
        kind: "stat",
        unit: "none",
        targets: [{ expr: `sum(up{${onInstance}})`, legend: "up" }]
      }
    ]
  },
  {
    title: "Requests: rate, errors, latency by route",
    panels: [
      {
        title: "Requests per second by route",
        description: "Every answered request, by route template (\"\" for paths that match none), over 5 minutes.",
        kind: "timeseries",
        unit: "reqps",
        targets: [{ expr: `sum by (http_route) (instance_route:http_server_requests:rate5m{${onRoute}})`, legend: "{{http_route}}" }]
      },
      {
        title: "Answers per second by status",
        description: "The same requests by status code: 304s are cache revalidations, 429s the rate limit, 503s the database away.",
        kind: "timeseries",
        unit: "reqps",
        targets: [{
          expr: `sum by (http_response_status_code) (instance_route_status:http_server_requests:rate5m{${onRoute}})`,
          legend: "{{http_response_status_code}}"
        }]
      },
      {
        title: `5xx share by route (SLO: at most ${ERROR_BUDGET * 100}%)`,
        description: "Share of each route's answers that were 5xx, over 5 minutes; the line is the error budget.",
        kind: "timeseries",
        unit: "percentunit",
        targets: [{
          expr: `(\n  sum by (http_route) (instance_route_status:http_server_requests:rate5m{${onRoute},http_response_status_code=~"5.."})\n  or\n` +
            `  0 * sum by (http_route) (instance_route:http_server_requests:rate5m{${onRoute}})\n)\n/\n` +
            `sum by (http_route) (instance_route:http_server_requests:rate5m{${onRoute}})`,
          legend: "{{http_route}}"
        }],
        threshold: { value: ERROR_BUDGET, above: "red" }
      },
      {
        title: `Latency by route: p50, p90, p99 (target: p99 under ${LATENCY_TARGET_SECONDS * 1000} ms)`,
        description: "Quantiles of the request duration histogram over the selected replicas, over 5 minutes; the line is the p99 target.",
        kind: "timeseries",
        unit: "s",
        targets: [0.5, 0.9, 0.99].map((quantile) => ({ expr: quantileOfRoute(quantile), legend: `{{http_route}} p${quantile * 100}` })),
        threshold: { value: LATENCY_TARGET_SECONDS, above: "red" }
      },
      {
        title: "Rate-limit refusals (429) per second",
        description: "Requests refused by the rate limit or the bound on one client's requests in flight.",
        kind: "timeseries",
        unit: "reqps",
        targets: [byInstance(`sum by (instance) (rate(catalogue_rate_limit_refusals_total{${onInstance}}[$__rate_interval]))`)]
      },
      {
        title: "Requests in flight",
        description: "Requests being answered at this moment, per replica.",
        kind: "timeseries",
        unit: "none",
        targets: [byInstance(`instance:http_server_active_requests:sum{${onInstance}}`)]
      }
    ]
  },
  {
    title: "Saturation: cache, database pool, memory, Redis, standby",
    panels: [
      {
        title: "Response cache hit ratio",
        description: "Share of public GETs the in-process response cache answered, over 5 minutes (nginx's own cache in front is not counted).",
        kind: "timeseries",
        unit: "percentunit",
        max: 1,
        targets: [byInstance(`instance:catalogue_cache_hits:ratio_rate5m{${onInstance}}`)]
      },
      {
        title: "Response cache size",
        description: "Bytes the response cache holds (bodies and keys), against CACHE_MAX_ENTRIES.",
        kind: "timeseries",
        unit: "bytes",
        targets: [byInstance(`catalogue_cache_size_bytes{${onInstance}}`)]
      },
      {
        title: "Database pool in use",
        description: "Connections running a statement, as a share of DATABASE_POOL_SIZE; at 100% requests wait for one.",
        kind: "timeseries",
        unit: "percentunit",
        max: 1,
        targets: [byInstance(`instance_pool:db_client_connection_usage:ratio{${onInstance}}`)]
      },
      {
        title: "Wait for a pooled connection, p99",
        description: "How long statements waited for a connection; past DATABASE_ACQUIRE_TIMEOUT_MS the request is answered 503.",
        kind: "timeseries",
        unit: "s",
        targets: [byInstance(`instance:db_client_connection_wait_time_seconds:histogram_quantile5m{${onInstance}}`)]
      },
      {
        title: "Memory: resident, JS heap and its limit",
        description: "Resident memory, and the JavaScript heap against MEMORY_LIMIT_MIB, the limit the memory guard keeps it under (drawn when set).",
        kind: "timeseries",
        unit: "bytes",
        targets: [
          byInstance(`process_memory_usage_bytes{${onInstance}}`, "{{instance}} resident"),
          byInstance(`catalogue_js_heap_used_bytes{${onInstance}}`, "{{instance}} JS heap"),
          byInstance(`catalogue_memory_limit_bytes{${onInstance}} > 0`, "{{instance}} heap limit")
        ]
      },
      {
        title: "Forced collections per second",
        description: "Full collections the memory guard forced (at most one a second while the JS heap is above its limit).",
        kind: "timeseries",
        unit: "ops",
        targets: [byInstance(`sum by (instance) (rate(catalogue_memory_forced_collections_total{${onInstance}}[$__rate_interval]))`)]
      },
      {
        title: "Rate limiter on its Redis fallback",
        description: "1 while a replica limits clients in its own memory because Redis does not answer.",
        kind: "timeseries",
        unit: "none",
        max: 1,
        targets: [byInstance(`max by (instance) (catalogue_rate_limit_redis_fallback{${onInstance}})`)],
        threshold: { value: 1, above: "red" }
      },
      {
        title: "Standby replay lag",
        description: `How far behind the primary the standby each replica reads is; the line is the alert's bound (${REPLAY_LAG_BOUND_SECONDS} s).`,
        kind: "timeseries",
        unit: "s",
        targets: [byInstance(`max by (instance) (catalogue_database_replay_lag_seconds{${onInstance}})`)],
        threshold: { value: REPLAY_LAG_BOUND_SECONDS, above: "red" }
      },
      {
        title: "Database unavailable: 503s per second",
        description: "Requests answered 503 because the database was away or did not answer in time.",
        kind: "timeseries",
        unit: "reqps",
        targets: [byInstance(`sum by (instance) (rate(catalogue_database_unavailable_total{${onInstance}}[$__rate_interval]))`)]
      }
    ]
  }
]

/** Every panel's expressions, for the suite that runs them against a real Prometheus. */
export const panelTargets = () => ROWS.flatMap((row) => row.panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, ...target }))))

const DATASOURCE = { type: "prometheus", uid: "${datasource}" }

const thresholds = (panel: Panel) => ({
  mode: "absolute",
  steps: panel.threshold === undefined
    ? [{ color: "green", value: null }]
    : [
      { color: panel.threshold.above === "red" ? "green" : "red", value: null },
      { color: panel.threshold.above, value: panel.threshold.value }
    ]
})

const panelJson = (panel: Panel, id: number, gridPos: { x: number; y: number; w: number; h: number }) => ({
  id,
  type: panel.kind,
  title: panel.title,
  description: panel.description,
  datasource: DATASOURCE,
  gridPos,
  fieldConfig: {
    defaults: {
      unit: panel.unit,
      ...(panel.max === undefined ? {} : { min: 0, max: panel.max }),
      thresholds: thresholds(panel),
      ...(panel.kind === "timeseries"
        ? { custom: { drawStyle: "line", lineWidth: 1, fillOpacity: 10, showPoints: "never", thresholdsStyle: { mode: panel.threshold === undefined ? "off" : "line" } } }
        : { decimals: panel.unit === "percentunit" ? 3 : 1 })
    },
    overrides: []
  },
  options: panel.kind === "timeseries"
    ? { legend: { displayMode: "list", placement: "bottom", showLegend: true }, tooltip: { mode: "multi", sort: "desc" } }
    : { reduceOptions: { calcs: ["lastNotNull"], fields: "", values: false }, colorMode: "background", graphMode: "none", textMode: "value" },
  targets: panel.targets.map((target, index) => ({
    datasource: DATASOURCE,
    expr: target.expr,
    legendFormat: target.legend,
    refId: String.fromCharCode(65 + index)
  }))
})

/** Rows one after another; stats four to a line, graphs two. */
const layout = () => {
  let id = 0
  let y = 0
  return ROWS.flatMap((row) => {
    const rowPanel = { id: ++id, type: "row", title: row.title, collapsed: false, gridPos: { x: 0, y: y++, w: 24, h: 1 }, panels: [] }
    const panels = row.panels.map((panel, index) => {
      const [w, h, perLine] = panel.kind === "stat" ? [6, 4, 4] : [12, 8, 2]
      return panelJson(panel, ++id, { x: (index % perLine) * w, y: y + Math.floor(index / perLine) * h, w, h })
    })
    const last = row.panels.at(-1)!
    y += Math.ceil(row.panels.length / (last.kind === "stat" ? 4 : 2)) * (last.kind === "stat" ? 4 : 8)
    return [rowPanel, ...panels]
  })
}

const queryVariable = (name: string, label: string, query: string) => ({
  name,
  label,
  type: "query",
  datasource: DATASOURCE,
  definition: query,
  query: { query, refId: name },
  multi: true,
  includeAll: true,
  allValue: ".*",
  current: { selected: true, text: ["All"], value: ["$__all"] },
  refresh: 2,
  sort: 1,
  hide: 0
})

/** The variables' queries, for the suite. */
export const VARIABLE_QUERIES = {
  instance: `label_values(up{job="${JOB}"}, instance)`,
  route: `label_values(http_server_request_duration_seconds_count{job="${JOB}",instance=~"$instance"}, http_route)`
}

export const dashboard = () => ({
  uid: "catalogue-api",
  title: "Catalogue API",
  description: "RED by route, the availability SLO and saturation of the catalogue API (docs/operations.md, \"Dashboards\").",
  tags: ["catalogue-api"],
  editable: true,
  graphTooltip: 1,
  refresh: "30s",
  schemaVersion: 39,
  time: { from: "now-6h", to: "now" },
  timezone: "",
  annotations: { list: [] },
  templating: {
    list: [
      { name: "datasource", label: "Data source", type: "datasource", query: "prometheus", current: {}, refresh: 1, hide: 0 },
      queryVariable("instance", "Instance", VARIABLE_QUERIES.instance),
      queryVariable("route", "Route", VARIABLE_QUERIES.route)
    ]
  },
  panels: layout()
})

export const dashboardFile = () => `${JSON.stringify(dashboard(), null, 2)}\n`
