import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import { type Signal, SIGNALS } from "./Signals.js"

const dropped = Metric.counter("catalogue.telemetry.dropped", {
  description: "Telemetry not delivered (spans, metric data points, log records): the collector did not answer in " +
    "time or refused it, or two exports of the same signal were already under way",
  incremental: true
})

const droppedBySignal = Object.fromEntries(
  SIGNALS.map((signal) => [signal, Metric.withAttributes(dropped, { signal })])
) as Record<Signal, Metric.Metric<number, unknown>>

// present from the start, at 0, for each signal
for (const signal of SIGNALS) droppedBySignal[signal].updateUnsafe(0, Context.empty())

type Payload = {
  readonly resourceSpans?: ReadonlyArray<{ readonly scopeSpans: ReadonlyArray<{ readonly spans?: ReadonlyArray<unknown> }> }>
  readonly resourceLogs?: ReadonlyArray<{ readonly scopeLogs: ReadonlyArray<{ readonly logRecords?: ReadonlyArray<unknown> }> }>
  readonly resourceMetrics?: ReadonlyArray<{
    readonly scopeMetrics: ReadonlyArray<{ readonly metrics: ReadonlyArray<Record<string, { readonly dataPoints?: ReadonlyArray<unknown> }>> }>
  }>
}

/** Spans, log records or metric data points in an OTLP/JSON export, read only when it is dropped. */
const itemsIn = (request: HttpClientRequest.HttpClientRequest): number => {
  const body = request.body
  if (!HttpBody.isHttpBody(body) || body._tag !== "Uint8Array") return 0
  try {
    const text = request.headers["content-encoding"] === "gzip"
      ? new TextDecoder().decode(Bun.gunzipSync(body.body as Uint8Array<ArrayBuffer>))
      : body.text ?? new TextDecoder().decode(body.body)
    const payload = JSON.parse(text) as Payload
    let items = 0
    for (const resource of payload.resourceSpans ?? []) for (const scope of resource.scopeSpans) items += scope.spans?.length ?? 0
    for (const resource of payload.resourceLogs ?? []) for (const scope of resource.scopeLogs) items += scope.logRecords?.length ?? 0
    for (const resource of payload.resourceMetrics ?? []) {
      for (const scope of resource.scopeMetrics) {
        for (const metric of scope.metrics) {
          for (const data of Object.values(metric)) if (typeof data === "object") items += data?.dataPoints?.length ?? 0
        }
      }
    }
    return items
  } catch {
    return 0
  }
}

/** Exports of one signal at once: one sending, one waiting for it; a third finds no room and is dropped. */
const MAX_EXPORTS = 2

/**
 * The HTTP client of one signal's OTLP exporters (Effect's, src/Telemetry.ts), bounded: one
 * export on the wire at a time, each within the signal's timeout, answer read included. An
 * export that fails, is refused by the collector, times out or finds no room is dropped and
 * counted (`catalogue.telemetry.dropped`); the exporter is told it was delivered, so it neither
 * retries it (Effect retries each three times and keeps it meanwhile) nor stops exporting for
 * a minute (what it does after a failure, dropping what it is handed uncounted). So a collector
 * that never answers holds at most two exports and one connection per signal.
 */
export const layer = (signal: Signal, timeoutMs: number): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) => {
      const timeout = Duration.millis(timeoutMs)
      const onTheWire = Semaphore.makeUnsafe(1)
      let underWay = 0
      const settled = (request: HttpClientRequest.HttpClientRequest, delivered: boolean) => {
        if (!delivered) droppedBySignal[signal].updateUnsafe(itemsIn(request), Context.empty())
        return HttpClientResponse.fromWeb(request, new Response(null, { status: 204 }))
      }
      return HttpClient.transform(client, (response, request) =>
        Effect.suspend(() => {
          if (underWay >= MAX_EXPORTS) return Effect.succeed(settled(request, false))
          underWay++
          const delivered = response.pipe(
            Effect.flatMap((answer) => Effect.as(answer.arrayBuffer, answer.status >= 200 && answer.status < 300)),
            Effect.timeoutOption(timeout),
            Effect.map((ok) => Option.getOrElse(ok, () => false)),
            Effect.orElseSucceed(() => false)
          )
          return onTheWire.withPermits(1)(delivered).pipe(
            Effect.map((ok) => settled(request, ok)),
            Effect.ensuring(Effect.sync(() => void underWay--))
          )
        }))
    })
  )
