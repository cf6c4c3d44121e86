/**
 * The dashboards and alerts of deploy/monitoring/ against a real Prometheus: the cluster's own
 * (cluster/Cluster.ts), scraping every replica's metrics port every second with the rules at a
 * twelfth of their durations (test/cluster/run.ts). Traffic, a standby taken away and brought
 * back; then, through Prometheus's HTTP API: the RED series with their labels, every panel's and
 * every rule's expression with data, and the database-unavailable alert pending, firing, resolved.
 * MONITORING_SCREENSHOTS=<dir> keeps the graph pages' PNGs there (docs/images for the docs).
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { describeWhen, testWhen } from "../support/skips.js"
import { mkdirSync } from "node:fs"
import { join, resolve } from "node:path"
import {
  clusterSql,
  prometheusUrl,
  proxyUrl,
  replicaMetricsUrl,
  replicaUrl,
  restartDatabase,
  signalReplica,
  startReplica,
  stopDatabase,
  type ReplicaSpec
} from "../../cluster/Cluster.js"
import { panelTargets, VARIABLE_QUERIES } from "../../cluster/monitoring/dashboard.js"
import { chromiumInstalled, GRAPHS, graphExpression, graphScreenshot, withAllSelected } from "../../cluster/monitoring/graphShot.js"
import { JOB, RECORDED } from "../../cluster/monitoring/rules.js"
import { cluster, get, PUBLIC_PATHS, runLoad } from "./support.js"

const state = cluster()
const prometheus = prometheusUrl(state)
const proxy = proxyUrl(state)

const servesMetrics = async (replica: ReplicaSpec) => {
  try {
    const response = await fetch(replicaMetricsUrl(replica), { signal: AbortSignal.timeout(2_000) })
    return response.ok && (await response.text()).includes("http_server_request_duration_seconds")
  } catch {
    return false
  }
}
const metricsServed = (await Promise.all(state.replicas.map(servesMetrics))).every(Boolean)
if (!metricsServed) {
  console.warn(
    "monitoring.cluster.ts skipped: the replicas' metrics ports (METRICS=prometheus, METRICS_PORT) do not answer " +
      "GET /metrics with http_server_request_duration_seconds: this service does not serve the agreed metrics there"
  )
}

interface Sample {
  readonly metric: Record<string, string>
  readonly value: [number, string]
}

interface ApiAnswer<T> {
  readonly status: "success" | "error"
  readonly error?: string
  readonly data: T
}

const api = async <T>(path: string, parameters: Record<string, string> = {}): Promise<ApiAnswer<T>> => {
  const query = new URLSearchParams(parameters).toString()
  const response = await fetch(`${prometheus}/api/v1/${path}${query === "" ? "" : `?${query}`}`)
  return (await response.json()) as ApiAnswer<T>
}

const instant = (expr: string) => api<{ resultType: string; result: Array<Sample> }>("query", { query: expr })

interface RuleState {
  readonly name: string
  readonly query: string
  readonly type: "recording" | "alerting"
  readonly health: string
  readonly lastError?: string
}

const loadedRules = async () =>
  (await api<{ groups: Array<{ name: string; rules: Array<RuleState> }> }>("rules")).data.groups.flatMap((group) => group.rules)

interface Alert {
  readonly labels: Record<string, string>
  readonly state: "pending" | "firing"
}

const alerts = async () => (await api<{ alerts: Array<Alert> }>("alerts")).data.alerts

/**
 * An alert's expression with every comparison made a `bool` one: 0 or 1 for each series instead of
 * the firing ones only, so that "returns data" means its inputs exist whether or not it fires.
 */
const withBoolComparisons = (query: string) => query.replace(/ (>=|<=|==|!=|>|<) (?!bool )/g, " $1 bool ")

const scrapeSeconds = state.monitoring.scrapeIntervalSeconds
const waitScrapes = (count: number) => Bun.sleep(count * scrapeSeconds * 1000 + 500)

const waitUntil = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = await probe()
    if (found !== undefined) return found
    await Bun.sleep(250)
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`)
}

/** The replica whose response cache this test turns on (the suite runs them with it off): the hit-ratio panel has something to show. */
const cached = state.replicas[0]!
/** The only replica on the second standby: the one the database alert is about. */
const onStandby2 = state.replicas.find((replica) => replica.reads === "standby2")!
const instanceOf = (replica: ReplicaSpec) => `127.0.0.1:${replica.metricsPort}`

describeWhen(metricsServed, "the replicas serve no metrics")("monitoring against a real Prometheus", () => {
  beforeAll(async () => {
    await signalReplica(state, cached, "SIGTERM")
    await startReplica(state, cached, { CACHE_TTL_SECONDS: "30" })
    // a transaction for the standbys to replay: until they have replayed one, their replay lag is unknown (no series)
    clusterSql(state, "primary", "SELECT txid_current()")
    // traffic: pages through the front (each a miss), errors, and repeated reads the response cache answers
    const load = runLoad(proxy, PUBLIC_PATHS, Bun.sleep(15_000), 4)
    for (let i = 0; i < 40; i++) {
      await get(replicaUrl(cached), `/v1/songs/${1 + (i % 4)}`)
      await get(proxy, i % 2 === 0 ? `/v1/songs/99999999?miss=${i}` : `/v1/no-such-route/${i}`)
    }
    const result = await load
    expect(result.failures).toEqual([])
    await waitScrapes(3)
  }, 60_000)

  afterAll(async () => {
    await signalReplica(state, cached, "SIGTERM")
    await startReplica(state, cached)
  }, 60_000)

  test("every replica is scraped, and the RED series carry the agreed labels", async () => {
    const up = await instant(`up{job="${JOB}"}`)
    expect(up.data.result.map((sample) => [sample.metric.instance, sample.value[1]]).sort()).toEqual(
      state.replicas.map((replica) => [instanceOf(replica), "1"]).sort()
    )
    const buckets = await instant(`http_server_request_duration_seconds_bucket{job="${JOB}",http_route="/v1/songs/:songId"}`)
    expect(buckets.data.result.length).toBeGreaterThan(0)
    const labels = new Set(buckets.data.result.flatMap((sample) => Object.keys(sample.metric)))
    for (const label of ["http_request_method", "url_scheme", "http_route", "http_response_status_code", "le", "instance", "replica", "standby"]) {
      expect({ label, present: labels.has(label) }).toEqual({ label, present: true })
    }
    const statuses = new Set(buckets.data.result.map((sample) => sample.metric.http_response_status_code))
    expect(statuses.has("200") && statuses.has("404")).toBe(true)
    // a path no route matches is counted under the empty route, never under its own text
    const offRoute = await instant(`http_server_request_duration_seconds_count{job="${JOB}",http_route=""}`)
    expect(offRoute.data.result.length).toBeGreaterThan(0)
    const routes = await api<Array<string>>("label/http_route/values")
    expect(routes.data.some((route) => route.includes("no-such-route"))).toBe(false)
    const active = await instant(`http_server_active_requests{job="${JOB}"}`)
    expect(Object.keys(active.data.result[0]!.metric)).toEqual(expect.arrayContaining(["http_request_method", "url_scheme"]))
  })

  test("every rule Prometheus loaded evaluates without error, and every recording rule has data", async () => {
    const rules = await waitUntil("every rule evaluated once", async () => {
      const loaded = await loadedRules()
      return loaded.every((rule) => rule.health !== "unknown") ? loaded : undefined
    }, 20_000)
    expect(rules.filter((rule) => rule.health !== "ok").map((rule) => `${rule.name}: ${rule.lastError}`)).toEqual([])
    const recorded = new Set(rules.filter((rule) => rule.type === "recording").map((rule) => rule.name))
    expect([...recorded].sort()).toEqual([...RECORDED].sort())
    for (const name of recorded) {
      const answer = await instant(name)
      expect({ name, status: answer.status, series: answer.data.result.length > 0 }).toEqual({ name, status: "success", series: true })
    }
  }, 60_000)

  test("every alert's expression has data (its comparisons made bool: 0 or 1 whether it fires or not)", async () => {
    const alerting = (await loadedRules()).filter((rule) => rule.type === "alerting")
    expect(alerting.length).toBeGreaterThanOrEqual(8)
    for (const rule of alerting) {
      const expr = withBoolComparisons(rule.query)
      const answer = await instant(expr)
      expect({ alert: rule.name, status: answer.status, error: answer.error, series: answer.data?.result.length > 0 })
        .toEqual({ alert: rule.name, status: "success", error: undefined, series: true })
    }
  }, 60_000)

  test("every expression of every dashboard panel and both variables return data", async () => {
    for (const target of panelTargets()) {
      const answer = await instant(withAllSelected(target.expr))
      expect({ panel: target.panel, legend: target.legend, status: answer.status, error: answer.error, series: answer.data?.result.length > 0 })
        .toEqual({ panel: target.panel, legend: target.legend, status: "success", error: undefined, series: true })
    }
    // label_values(<selector>, <label>) is Grafana's: Prometheus's label values API under the same selector
    for (const [variable, query] of Object.entries(VARIABLE_QUERIES)) {
      const [, selector, label] = /^label_values\((.+), (\w+)\)$/.exec(query)!
      const answer = await api<Array<string>>(`label/${label}/values`, { "match[]": withAllSelected(selector!) })
      expect({ variable, status: answer.status, values: answer.data.length > 0 }).toEqual({ variable, status: "success", values: true })
    }
    // the response cache's hits show on the replica that has one (within the rules' shortened 5 minutes)
    for (let i = 0; i < 10; i++) await get(replicaUrl(cached), `/v1/songs/${1 + (i % 2)}`)
    await waitScrapes(3)
    const hits = await instant(`instance:catalogue_cache_hits:ratio_rate5m{instance="${instanceOf(cached)}"}`)
    expect(Number(hits.data.result[0]!.value[1])).toBeGreaterThan(0)
  }, 60_000)

  testWhen(chromiumInstalled(), "chromium is not installed")("Prometheus's graph page, drawn by headless Chromium, for the request-rate and p99 panels", async () => {
    const dir = process.env.MONITORING_SCREENSHOTS === undefined ? join(state.dir, "screenshots") : resolve(process.env.MONITORING_SCREENSHOTS)
    mkdirSync(dir, { recursive: true })
    for (const file of Object.keys(GRAPHS) as Array<keyof typeof GRAPHS>) {
      const bytes = await graphScreenshot(prometheus, graphExpression(file), join(dir, file), "1m")
      // a drawn graph with its legend, not an empty page
      expect({ file, large: bytes > 20_000 }).toEqual({ file, large: true })
    }
  }, 120_000)

  test("a standby away: CatalogueDatabaseUnavailable goes pending, then firing, for its replica only, and resolves when it is back", async () => {
    const instance = instanceOf(onStandby2)
    const mine = (alert: Alert) => alert.labels.alertname === "CatalogueDatabaseUnavailable" && alert.labels.instance === instance
    expect((await alerts()).filter(mine)).toEqual([])
    const seen: Array<string> = []
    stopDatabase(state, "standby2", "fast")
    let asking = true
    // clients that reach the replica directly get 503s; the balancer's readiness checks get them too
    const asked = (async () => {
      for (let n = 0; asking; n++) {
        await get(replicaUrl(onStandby2), `/v1/songs?limit=2&away=${n}`)
        await Bun.sleep(200)
      }
    })()
    try {
      await waitUntil("CatalogueDatabaseUnavailable firing", async () => {
        const current = (await alerts()).find(mine)?.state
        if (current !== undefined && seen.at(-1) !== current) seen.push(current)
        return current === "firing" ? current : undefined
      }, 60_000)
      expect(seen).toEqual(["pending", "firing"])
      // the other replicas' standby answers: no alert for them
      expect((await alerts()).filter((alert) => alert.labels.alertname === "CatalogueDatabaseUnavailable").map((alert) => alert.labels.instance))
        .toEqual([instance])
      // its 503s carry error.type
      const failed = await instant(`http_server_request_duration_seconds_count{job="${JOB}",instance="${instance}",http_response_status_code="503"}`)
      expect(failed.data.result.length).toBeGreaterThan(0)
      for (const sample of failed.data.result) expect(sample.metric.error_type).toBe("503")
    } finally {
      asking = false
      await asked
      restartDatabase(state, "standby2")
    }
    await waitUntil("CatalogueDatabaseUnavailable resolved", async () => ((await alerts()).some(mine) ? undefined : true), 60_000)
  }, 180_000)
})
