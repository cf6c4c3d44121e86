import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as OtlpExporter from "effect/observability/OtlpExporter"
import type * as OtlpLogger from "effect/observability/OtlpLogger"
import * as OtlpResource from "effect/observability/OtlpResource"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import type { LineSink, LogLine } from "../Logging.js"

/** OpenTelemetry's severity numbers, as Effect's own OTLP logger sends them. */
const SEVERITY: Record<LogLine["level"], number> = { Trace: 1, Debug: 5, Info: 9, Warn: 13, Error: 17, Fatal: 21 }
const SCOPE = { name: "catalogue-api/requests" }

/** A line's OTLP log record: its fields as attributes, its trace and span ids as the record's own. */
const recordOf = ({ attributes, level, message, timestamp }: LogLine) => {
  const traceId = attributes["trace_id"]
  const spanId = attributes["span_id"]
  const time = `${timestamp}000000`
  return {
    timeUnixNano: time,
    observedTimeUnixNano: time,
    severityNumber: SEVERITY[level],
    severityText: level.toUpperCase(),
    body: { stringValue: message },
    attributes: OtlpResource.entriesToAttributes(Object.entries(attributes)),
    droppedAttributesCount: 0,
    ...(typeof traceId === "string" && traceId !== "" ? { traceId } : undefined),
    ...(typeof spanId === "string" && spanId !== "" ? { spanId } : undefined)
  }
}

/** Headers as src/Config.ts leaves them: `name=value` pairs, values percent-encoded. */
const headersOf = (text: string): Record<string, string> =>
  Object.fromEntries(text.split(",").filter((pair) => pair !== "").map((pair) => {
    const at = pair.indexOf("=")
    return [pair.slice(0, at), decodeURIComponent(pair.slice(at + 1))]
  }))

export interface LinesExport {
  readonly url: string
  readonly headers: string | undefined
  readonly compression: "gzip" | "none"
  readonly intervalMs: number
  readonly resource: { readonly serviceName: string; readonly serviceVersion: string }
}

/**
 * The one line per request (src/Http/Observe.ts), written without a fiber, also exported as an
 * OTLP log record when logs are exported: by Effect's exporter (batched, flushed at shutdown),
 * bounded with the logs signal (src/Telemetry/BoundedExport.ts) like Effect's own logger,
 * which exports every other line. The terminal line stays as it is.
 */
export class RequestLines extends Context.Service<RequestLines, {
  readonly exported: (write: LineSink) => LineSink
}>()("catalogue/RequestLines") {
  static readonly off = Layer.succeed(RequestLines, { exported: (write) => write })

  static readonly layer = (options: LinesExport) =>
    Layer.effect(
      RequestLines,
      Effect.gen(function*() {
        const serialization = yield* OtlpSerialization.OtlpSerialization
        const resource = yield* OtlpResource.fromConfig(options.resource)
        const exporter = yield* OtlpExporter.make({
          label: "OtlpLogger",
          url: options.url,
          headers: options.headers === undefined ? undefined : headersOf(options.headers),
          compression: options.compression,
          exportInterval: Duration.millis(options.intervalMs),
          maxBatchSize: 1000,
          body: (logRecords) => {
            const data: OtlpLogger.LogsData = { resourceLogs: [{ resource, scopeLogs: [{ scope: SCOPE, logRecords }] }] }
            return [serialization.logs(data), Effect.void]
          },
          shutdownTimeout: Duration.seconds(3)
        })
        return {
          exported: (write): LineSink => (line) => {
            write(line)
            exporter.push(recordOf(line))
          }
        }
      })
    ).pipe(Layer.provide(OtlpExporter.layerFlusher))
}
