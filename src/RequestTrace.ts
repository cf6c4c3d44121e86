import type * as HttpServerRequest from "effect/http/HttpServerRequest"

/**
 * The trace id of each request in flight, by its web Request, for the few log lines written
 * inside a request (a failure's "request failed"). Cheaper than `Effect.annotateLogs` around
 * every request, which copied the fiber's log annotations each time (~5% of an uncached
 * detail's CPU, A/B 2026-11-22) for lines that are rarely written.
 */
const traceIds = new WeakMap<object, string>()

export const rememberTraceId = (request: HttpServerRequest.HttpServerRequest, traceId: string) =>
  void traceIds.set(request.source as object, traceId)

export const traceIdOf = (request: HttpServerRequest.HttpServerRequest): string =>
  traceIds.get(request.source as object) ?? ""
