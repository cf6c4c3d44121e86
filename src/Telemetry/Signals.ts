import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { AppConfigValues } from "../Config.js"

/** The three OpenTelemetry signals, each exported (or not) by itself. */
export type Signal = "traces" | "metrics" | "logs"

export const SIGNALS: ReadonlyArray<Signal> = ["traces", "metrics", "logs"]

type TelemetrySettings = AppConfigValues["telemetry"]

const VARIABLE: Record<Signal, string> = { traces: "TRACES", metrics: "METRICS", logs: "LOGS" }

export interface SignalExport {
  /** where its exports are posted */
  readonly url: string
  /** the longest one export may take before it is dropped */
  readonly timeoutMs: number
}

/** A signal's endpoint: its own, or `v1/<signal>` below the general one (OpenTelemetry's rule, as Effect applies it). */
const urlOf = (telemetry: TelemetrySettings, signal: Signal): string | undefined => {
  const own = telemetry[signal].endpoint
  if (Option.isSome(own)) return own.value
  if (Option.isNone(telemetry.endpoint)) return undefined
  const url = new URL(telemetry.endpoint.value)
  url.pathname += `${url.pathname.endsWith("/") ? "" : "/"}v1/${signal}`
  return url.toString()
}

/**
 * Where each signal goes, or undefined where it is not exported: a signal is exported when an
 * endpoint is set for it, its exporter is `otlp` and the SDK is not disabled.
 */
export const exportsOf = (telemetry: TelemetrySettings): Record<Signal, SignalExport | undefined> => {
  const exportOf = (signal: Signal): SignalExport | undefined => {
    const url = urlOf(telemetry, signal)
    if (telemetry.sdkDisabled || telemetry[signal].exporter === "none" || url === undefined) return undefined
    return { url, timeoutMs: Option.getOrElse(telemetry[signal].timeoutMs, () => telemetry.timeoutMs) }
  }
  return { traces: exportOf("traces"), metrics: exportOf("metrics"), logs: exportOf("logs") }
}

/** `service.name`: OTEL_SERVICE_NAME, else the one in OTEL_RESOURCE_ATTRIBUTES, else the service's own. */
export const serviceNameOf = (telemetry: TelemetrySettings): string =>
  Option.getOrElse(
    telemetry.serviceName,
    () => Option.getOrUndefined(telemetry.resourceAttributes)?.values["service.name"] ?? "catalogue-api"
  )

/**
 * The variables Effect's OTLP readers (`layerFromConfig`) are given: the ones set, as checked by
 * src/Config.ts (so none of them can fail there), each signal's exporter as decided above.
 * Timeouts are not among them: ./BoundedExport.ts applies them to every export.
 */
export const readerVariables = (telemetry: TelemetrySettings): Record<string, string> => {
  const exported = exportsOf(telemetry)
  const variables: Record<string, string> = {}
  const put = (name: string, value: Option.Option<string | number | Redacted.Redacted<string>>) => {
    if (Option.isSome(value)) {
      variables[name] = Redacted.isRedacted(value.value) ? Redacted.value(value.value) : String(value.value)
    }
  }
  put("OTEL_EXPORTER_OTLP_ENDPOINT", telemetry.endpoint)
  put("OTEL_EXPORTER_OTLP_HEADERS", telemetry.headers)
  put("OTEL_EXPORTER_OTLP_COMPRESSION", telemetry.compression)
  for (const signal of SIGNALS) {
    const name = VARIABLE[signal]
    variables[`OTEL_${name}_EXPORTER`] = exported[signal] === undefined ? "none" : "otlp"
    put(`OTEL_EXPORTER_OTLP_${name}_ENDPOINT`, telemetry[signal].endpoint)
    put(`OTEL_EXPORTER_OTLP_${name}_HEADERS`, telemetry[signal].headers)
    put(`OTEL_EXPORTER_OTLP_${name}_COMPRESSION`, telemetry[signal].compression)
  }
  put("OTEL_RESOURCE_ATTRIBUTES", Option.map(telemetry.resourceAttributes, (attributes) => attributes.text))
  put("OTEL_BSP_SCHEDULE_DELAY", telemetry.tracesDelayMs)
  put("OTEL_METRIC_EXPORT_INTERVAL", telemetry.metricsIntervalMs)
  put("OTEL_BLRP_SCHEDULE_DELAY", telemetry.logsDelayMs)
  return variables
}
