import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { RequestTrace } from "./Telemetry/TraceContext.js"

/**
 * The trace and span ids of each request in flight, by its web Request, for the few log lines
 * written inside a request (a failure's "request failed"). Cheaper than `Effect.annotateLogs`
 * around every request, which copied the fiber's log annotations each time (~5% of an uncached
 * detail's CPU, A/B 2026-11-22) for lines that are rarely written.
 */
const requestIds = new WeakMap<object, Pick<RequestTrace, "traceId" | "spanId">>()

export const rememberRequestIds = (request: HttpServerRequest.HttpServerRequest, ids: Pick<RequestTrace, "traceId" | "spanId">) =>
  void requestIds.set(request.source as object, ids)

/** The log annotations naming a request: its `trace_id` and `span_id`. */
export const requestLogIds = (request: HttpServerRequest.HttpServerRequest): Record<string, string> => {
  const ids = requestIds.get(request.source as object)
  return { trace_id: ids?.traceId ?? "", span_id: ids?.spanId ?? "" }
}
