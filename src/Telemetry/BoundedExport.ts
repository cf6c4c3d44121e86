import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import type * as OtlpLogger from "effect/observability/OtlpLogger"
import type * as OtlpMetrics from "effect/observability/OtlpMetrics"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import type * as OtlpTracer from "effect/observability/OtlpTracer"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import { add, telemetryDropped } from "../Metrics.js"
import type { Signal } from "./Signals.js"

const sumOf = <T>(groups: ReadonlyArray<T>, count: (group: T) => number) => groups.reduce((sum, group) => sum + count(group), 0)

const spansIn = (data: OtlpTracer.TraceData) =>
  sumOf(data.resourceSpans, (resource) => sumOf(resource.scopeSpans, (scope) => scope.spans.length))

const recordsIn = (data: OtlpLogger.LogsData) =>
  sumOf(data.resourceLogs, (resource) => sumOf(resource.scopeLogs, (scope) => scope.logRecords?.length ?? 0))

/** A metric's data points, whichever kind it is (`sum`, `gauge`, `histogram`, `summary`). */
const pointsOf = (metric: object) =>
  sumOf(Object.values(metric), (value: unknown) =>
    typeof value === "object" && value !== null && "dataPoints" in value && Array.isArray(value.dataPoints) ? value.dataPoints.length : 0)

const pointsIn = (data: OtlpMetrics.MetricsData) =>
  sumOf(data.resourceMetrics, (resource) => sumOf(resource.scopeMetrics, (scope) => sumOf(scope.metrics, pointsOf)))

/** Exports of one signal at once: one sending, one waiting for it; another finds no room and is dropped. */
const MAX_EXPORTS = 2

/**
 * One signal's OTLP export (Effect's exporters, src/Telemetry.ts), bounded: the serialization
 * and HTTP client its exporters are given. At most two exports are under way at once, one of
 * them on the wire, each within the signal's timeout, answer read included; a batch that finds
 * no room is dropped before it is even serialized. What is dropped or not delivered (the
 * collector failed, refused or did not answer in time) is counted in `catalogue.telemetry.dropped`
 * and reported delivered to the exporter, so it neither retries it (Effect retries an export
 * three times, holding it meanwhile) nor stops exporting for a minute (what it does after a
 * failure, dropping uncounted what it is handed meanwhile). A collector that never answers
 * holds at most two batches and one connection per signal.
 */
export const layer = (signal: Signal, timeoutMs: number): Layer.Layer<
  HttpClient.HttpClient | OtlpSerialization.OtlpSerialization,
  never,
  HttpClient.HttpClient | OtlpSerialization.OtlpSerialization
> =>
  Layer.effectContext(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const serialization = yield* OtlpSerialization.OtlpSerialization
    const timeout = Duration.millis(timeoutMs)
    const onTheWire = Semaphore.makeUnsafe(1)
    const count = (items: number) => add(telemetryDropped[signal], items)
    let underWay = 0
    /**
     * The items of each export admitted and not yet handed to the client, oldest first (with gzip,
     * two exports of a signal may reach the client in the other order: their counts swap).
     */
    const admitted: Array<number> = []

    const admit = (items: number, serialize: () => HttpBody.HttpBody): HttpBody.HttpBody => {
      if (underWay >= MAX_EXPORTS) {
        count(items)
        return HttpBody.empty
      }
      underWay++
      admitted.push(items)
      return serialize()
    }

    const delivered = (request: HttpClientRequest.HttpClientRequest) =>
      HttpClientResponse.fromWeb(request, new Response(null, { status: 204 }))

    const send = (response: Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>, request: HttpClientRequest.HttpClientRequest) => {
      // a batch refused above: nothing to send, already counted
      if (request.body._tag === "Empty") return Effect.succeed(delivered(request))
      const items = admitted.shift() ?? 0
      const sent = response.pipe(
        Effect.flatMap((answer) => Effect.as(answer.arrayBuffer, answer.status >= 200 && answer.status < 300)),
        Effect.timeoutOption(timeout),
        Effect.map((ok) => Option.getOrElse(ok, () => false)),
        Effect.orElseSucceed(() => false)
      )
      return onTheWire.withPermits(1)(sent).pipe(
        Effect.map((ok) => {
          if (!ok) count(items)
          return delivered(request)
        }),
        Effect.ensuring(Effect.sync(() => void underWay--))
      )
    }

    return Context.make(HttpClient.HttpClient, HttpClient.transform(client, send)).pipe(
      Context.add(OtlpSerialization.OtlpSerialization, {
        traces: (data) => admit(spansIn(data), () => serialization.traces(data)),
        metrics: (data) => admit(pointsIn(data), () => serialization.metrics(data)),
        logs: (data) => admit(recordsIn(data), () => serialization.logs(data))
      })
    )
  }))
