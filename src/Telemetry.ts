import * as ConfigProvider from "effect/ConfigProvider"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as OtlpLogger from "effect/observability/OtlpLogger"
import * as OtlpMetrics from "effect/observability/OtlpMetrics"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as OtlpTracer from "effect/observability/OtlpTracer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import { API_VERSION } from "./Contract/Api.js"
import { AppConfig } from "./Config.js"
import * as AttributeLimit from "./Telemetry/AttributeLimit.js"
import * as BoundedExport from "./Telemetry/BoundedExport.js"
import { RequestLines } from "./Telemetry/RequestLines.js"
import { exportsOf, readerVariables, serviceNameOf } from "./Telemetry/Signals.js"

/**
 * Traces, metrics and logs over OTLP/HTTP (JSON), each on or off by itself (docs/operations.md,
 * "Telemetry"), by Effect's own exporters read from OpenTelemetry's variables (`layerFromConfig`,
 * given the values src/Config.ts checked), each signal bounded (src/Telemetry/BoundedExport.ts).
 *
 * Effect's tracer is switched off everywhere but inside a sampled request (src/Http/ServerSpans.ts
 * starts its span, src/Http/Pipeline.ts switches tracing on under it), so `withSpan` in repositories
 * and the SQL client's per-statement spans cost next to nothing for every other request.
 */
export const layer = Layer.unwrap(
  AppConfig.useSync(({ telemetry }) => {
    const exported = exportsOf(telemetry)
    const resource = { serviceName: serviceNameOf(telemetry), serviceVersion: API_VERSION }
    const traces = exported.traces === undefined
      ? Layer.empty
      : AttributeLimit.layer(AttributeLimit.spanAttributeLengthOf(telemetry)).pipe(
        Layer.provideMerge(OtlpTracer.layerFromConfig({ resource })),
        Layer.provide(BoundedExport.layer("traces", exported.traces.timeoutMs))
      )
    const metrics = exported.metrics === undefined
      ? Layer.empty
      : OtlpMetrics.layerFromConfig({ resource }).pipe(Layer.provide(BoundedExport.layer("metrics", exported.metrics.timeoutMs)))
    const logs = exported.logs === undefined ? RequestLines.off : Layer.merge(
      OtlpLogger.layerFromConfig({ resource }),
      RequestLines.layer({
        url: exported.logs.url,
        headers: Option.getOrUndefined(Option.map(Option.orElse(telemetry.logs.headers, () => telemetry.headers), Redacted.value)),
        compression: Option.getOrElse(Option.orElse(telemetry.logs.compression, () => telemetry.compression), () => "none" as const),
        intervalMs: Option.getOrElse(telemetry.logsDelayMs, () => 1000),
        resource
      })
    ).pipe(Layer.provide(BoundedExport.layer("logs", exported.logs.timeoutMs)))
    return Layer.mergeAll(Layer.succeed(References.TracerEnabled, false), traces, metrics, logs).pipe(
      Layer.provide(OtlpSerialization.layerJson),
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: readerVariables(telemetry) })))
    )
  })
)
