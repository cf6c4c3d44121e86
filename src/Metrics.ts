/**
 * The service's metrics (docs/operations.md, "Metrics"), named by OpenTelemetry's semantic
 * conventions and kept in Effect's metric registry: exported over OTLP, and rendered as
 * Prometheus text (with the OpenTelemetry-to-Prometheus names) on the metrics listener
 * (src/Http/MetricsListener.ts). Every label value comes from a finite set the code fixes, never
 * from what a client sends, so the set of series is closed and nothing needs a cap. Updated
 * without a fiber (the front door answers before the Effect runtime); figures that already exist
 * elsewhere (memory, pool, cache size) are read when the metrics are collected, not kept.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import { AppConfig, type AppConfigValues, guardedHeapLimitMiB } from "./Config.js"
import { exportsOf, serviceNameOf } from "./Telemetry/Signals.js"

/** No context of a request: the registry is Effect's default one. */
const NO_CONTEXT = Context.empty()

/** Every duration histogram's buckets, in seconds: fine below 5 ms, where cache hits and by-key reads answer. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

type Unit = "s" | "By"
type Attributes = Readonly<Record<string, string>>

const PROMETHEUS_UNIT_SUFFIX: Record<Unit, string> = { s: "_seconds", By: "_bytes" }

/** OpenTelemetry name -> Prometheus name: dots as underscores, the unit's suffix, `_total` on counters. */
const prometheusNames = new Map<string, string>()

const named = (name: string, unit: Unit | undefined, monotonic: boolean) =>
  void prometheusNames.set(name, name.replaceAll(".", "_") + (unit === undefined ? "" : PROMETHEUS_UNIT_SUFFIX[unit]) + (monotonic ? "_total" : ""))

/** Effect's OTLP exporter reads an instrument's unit from its `unit` attribute; the Prometheus text leaves it out. */
const withUnit = (unit: Unit | undefined, attributes: Attributes | undefined): Attributes | undefined =>
  unit === undefined ? attributes : { ...attributes, unit }

/** A monotonic counter (an OTLP monotonic sum; `_total` in Prometheus). */
export const counter = (name: string, description: string, attributes?: Attributes) => {
  named(name, undefined, true)
  return Metric.counter(name, { description, incremental: true, attributes })
}

export const gauge = (name: string, description: string, unit?: Unit, attributes?: Attributes) => {
  named(name, unit, false)
  return Metric.gauge(name, { description, attributes: withUnit(unit, attributes) })
}

/** A histogram of durations in seconds, with DURATION_BUCKETS. */
export const durationHistogram = (name: string, description: string, attributes?: Attributes) => {
  named(name, "s", false)
  return Metric.histogram(name, { description, boundaries: DURATION_BUCKETS, attributes: withUnit("s", attributes) })
}

/** Adds `n` (1 unless said) to a counter, or to a gauge counting up and down, from outside any fiber. */
export const add = (metric: Metric.Metric<number, unknown>, n = 1) => metric.modifyUnsafe(n, NO_CONTEXT)

/** Sets a gauge, or adds one value to a histogram, from outside any fiber. */
export const record = (metric: Metric.Metric<number, unknown>, value: number) => metric.updateUnsafe(value, NO_CONTEXT)

const NOTHING = () => undefined

/**
 * A gauge whose value is read when the metrics are collected (a scrape, an export): nothing is
 * kept up to date on anyone's path. Returns what removes it.
 */
export const observe = (metric: Metric.Gauge<number>, read: () => number): () => void =>
  Metric.registerUnsafe(metric, NO_CONTEXT, { get: () => ({ value: read() }), update: NOTHING, modify: NOTHING }).remove

/** Whether anything reads the metrics: their OTLP export, or /metrics. */
export const metricsWanted = (config: AppConfigValues) =>
  exportsOf(config.telemetry).metrics !== undefined || config.metrics === "prometheus"

// --- counters of the edge and the database's availability

export const rateLimitRefusals = counter(
  "catalogue.rate_limit.refusals",
  "Requests refused by the rate limit or the bound on a client's requests in flight (429)"
)

export const databaseUnavailable = counter(
  "catalogue.database.unavailable",
  "Requests answered 503 because the database could not be reached or did not answer in time"
)

const cacheRequests = (result: "hit" | "miss") =>
  counter("catalogue.cache.requests", "Public GET/HEAD lookups in the in-process response cache, by result", { "cache.result": result })
export const cacheHit = cacheRequests("hit")
export const cacheMiss = cacheRequests("miss")

export const forcedCollections = counter(
  "catalogue.memory.forced_collections",
  "Full garbage collections the memory guard forced (MEMORY_LIMIT_MIB)"
)

const dropped = (signal: "traces" | "metrics" | "logs") =>
  counter(
    "catalogue.telemetry.dropped",
    "Telemetry not delivered (spans, metric data points, log records): the collector did not answer in " +
      "time or refused it, or two exports of the same signal were already under way",
    { signal }
  )

/** What the OTLP exporters did not deliver, by signal (src/Telemetry/BoundedExport.ts). */
export const telemetryDropped = { traces: dropped("traces"), metrics: dropped("metrics"), logs: dropped("logs") }

const redisFallback = gauge(
  "catalogue.rate_limit.redis_fallback",
  "1 while the rate limit counts in this process's memory because Redis does not answer; 0 otherwise"
)
let redisFallbackActive = false

/** The rate limit went over to (true) or back from (false) its in-memory buckets. */
export const setRedisFallback = (active: boolean) => {
  if (active === redisFallbackActive) return
  redisFallbackActive = active
  record(redisFallback, active ? 1 : 0)
}

// present from the start, at 0: a dashboard's rate of a series that does not exist yet is no rate at all
for (const metric of [rateLimitRefusals, databaseUnavailable, cacheHit, cacheMiss, forcedCollections, ...Object.values(telemetryDropped)]) {
  add(metric, 0)
}
record(redisFallback, 0)

/** The response cache's size, read when collected. Returns what removes it. */
export const meterResponseCache = (stats: () => { readonly entries: number; readonly bytes: number }) => {
  const removals = [
    observe(gauge("catalogue.cache.entries", "Entries in the in-process response cache"), () => stats().entries),
    observe(gauge("catalogue.cache.size", "Bytes the in-process response cache holds (keys and every coding of each body)", "By"), () => stats().bytes)
  ]
  return () => removals.forEach((remove) => remove())
}

// --- the database

const connectionCount = (pool: Attributes, state: "idle" | "used") =>
  gauge("db.client.connection.count", "Connections of the pool, by state (an embedded database has one)", undefined, {
    "db.client.connection.state": state,
    ...pool
  })

/** What a pg pool says of itself. */
export interface PoolCounts {
  readonly totalCount: number
  readonly idleCount: number
}

/**
 * A connection pool's figures: its connections by state and its size, read when collected, and
 * the waits for a connection as they happen. `close` removes its series with the pool.
 */
export const meterPool = (name: string, max: number, pool: PoolCounts) => {
  const attributes = { "db.client.connection.pool.name": name }
  const removals = [
    observe(connectionCount(attributes, "idle"), () => pool.idleCount),
    observe(connectionCount(attributes, "used"), () => pool.totalCount - pool.idleCount),
    observe(gauge("db.client.connection.max", "The most connections the pool opens", undefined, attributes), () => max)
  ]
  const waits = durationHistogram("db.client.connection.wait_time", "Time a statement waited for a connection of the pool, in seconds", attributes)
  return {
    waited: (ms: number) => record(waits, ms / 1000),
    close: () => {
      for (const remove of removals) remove()
      Metric.removeUnsafe(waits, NO_CONTEXT)
    }
  }
}

const replayLag = gauge(
  "catalogue.database.replay_lag",
  "Seconds since the last transaction this standby replayed was committed on the primary (only on a standby)",
  "s"
)

/** A standby's replay lag in seconds, or undefined where there is none to give (a primary; unknown): the series is then absent. */
export const setReplayLag = (seconds: number | undefined) =>
  seconds === undefined ? Metric.removeUnsafe(replayLag, NO_CONTEXT) : record(replayLag, seconds)

// --- the process

/** The process's own figures, read when collected, for as long as the service runs. */
export const processMetricsLayer = (serviceVersion: string) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const config = yield* AppConfig
    const limitBytes = guardedHeapLimitMiB(config) * 1024 * 1024
    const build = gauge("catalogue.build.info", "1, labelled with the running build", undefined, {
      "service.version": serviceVersion,
      "service.name": serviceNameOf(config.telemetry)
    })
    yield* Effect.acquireRelease(
      Effect.sync(() => [
        observe(gauge("process.memory.usage", "Resident memory of the process (RSS), in bytes", "By"), () => process.memoryUsage.rss()),
        observe(gauge("catalogue.js.heap.used", "Bytes of the JavaScript heap in use", "By"), () => process.memoryUsage().heapUsed),
        observe(gauge("catalogue.memory.limit", "The JS heap limit the memory guard keeps (MEMORY_LIMIT_MIB), in bytes; 0: none (also with the embedded database)", "By"), () => limitBytes),
        observe(build, () => 1)
      ]),
      (removals) => Effect.sync(() => removals.forEach((remove) => remove()))
    )
  }))

/** Every metric of the registry as Prometheus text (version 0.0.4), with the OpenTelemetry-to-Prometheus names. */
export const prometheusText = () =>
  PrometheusMetrics.formatUnsafe(NO_CONTEXT, { metricNameMapper: (name) => prometheusNames.get(name) ?? name })
