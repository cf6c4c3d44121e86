/**
 * The service's RED metrics (docs/operations.md, "Metrics"), kept in Effect's metric registry:
 * exported over OTLP when an endpoint is configured, and served as Prometheus text at /metrics
 * when METRICS=prometheus. Updated without a fiber (the front door answers some requests before
 * the Effect runtime), each series' metric made once.
 */
import * as Context from "effect/Context"
import * as Metric from "effect/Metric"
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import type { AppConfigValues } from "./Config.js"
import { exportsOf } from "./Telemetry/Signals.js"

/** No context of a request: the registry is Effect's default one. */
const NO_CONTEXT = Context.empty()

/** OpenTelemetry's default buckets for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

const requestDuration = Metric.histogram("http.server.request.duration", {
  description: "Duration of HTTP server requests, in seconds (its count is the request count)",
  boundaries: DURATION_BUCKETS
})

export const rateLimitRefusals = Metric.counter("catalogue.rate_limit.refusals", {
  description: "Requests refused by the rate limit (429)"
})

export const databaseUnavailable = Metric.counter("catalogue.database.unavailable", {
  description: "Requests answered 503 because the database could not be reached or did not answer in time"
})

export const connectionWait = Metric.histogram("db.client.connection.wait_time", {
  description: "Time a statement waited for a pooled database connection, in seconds",
  boundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
})

// present from the start, at 0: a dashboard's rate of a series that does not exist yet is no rate at all
rateLimitRefusals.updateUnsafe(0, NO_CONTEXT)
databaseUnavailable.updateUnsafe(0, NO_CONTEXT)

/** One metric per series (route, method, status): its attributes are merged once, not per request. */
const durationSeries = new Map<string, Metric.Metric<number, unknown>>()
const MAX_SERIES = 2000

/** Whether anything reads the metrics: their OTLP export, or /metrics. */
export const metricsWanted = (config: AppConfigValues) =>
  exportsOf(config.telemetry).metrics !== undefined || config.metrics === "prometheus"

/** A request answered: its duration under its route template ("" off-route), method and status. */
export const recordRequest = (method: string, route: string | undefined, status: number, durationMs: number) => {
  const key = `${status} ${method} ${route ?? ""}`
  let series = durationSeries.get(key)
  if (series === undefined) {
    // a method no route takes is any text a client sends: past the bound, such series are not kept
    if (durationSeries.size >= MAX_SERIES) return
    series = Metric.withAttributes(requestDuration, {
      "http.route": route ?? "",
      "http.request.method": method,
      "http.response.status_code": String(status)
    })
    durationSeries.set(key, series)
  }
  series.updateUnsafe(durationMs / 1000, NO_CONTEXT)
  if (status === 429) rateLimitRefusals.updateUnsafe(1, NO_CONTEXT)
}

/** Adds 1 to a counter from outside any fiber. */
export const count = (counter: Metric.Metric<number, unknown>) => counter.updateUnsafe(1, NO_CONTEXT)

/** Adds a duration in milliseconds to a histogram in seconds. */
export const observeMs = (histogram: Metric.Metric<number, unknown>, ms: number) =>
  histogram.updateUnsafe(ms / 1000, NO_CONTEXT)

/** Every metric of the registry as Prometheus text (version 0.0.4). */
export const prometheusText = () => PrometheusMetrics.formatUnsafe(NO_CONTEXT)
