import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../Config.js"
import { pathAndQuery, pathOf } from "./Url.js"
import { prometheusText } from "../Metrics.js"
import { bareErrorAnswer, toWebResponse } from "./Answer.js"
import { envelope } from "./Errors.js"

/** A scrape within this long of the last render gets the same text. */
export const RENDER_INTERVAL_MS = 1000

const METRICS_HEADERS = { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" }

/** The rendered text, made again only once RENDER_INTERVAL_MS has passed: scrapers cannot make the service render more often. */
const makeRendered = () => {
  const encoder = new TextEncoder()
  let last: { readonly body: Uint8Array; readonly atMs: number } | undefined
  return () => {
    const now = performance.now()
    if (last === undefined || now - last.atMs >= RENDER_INTERVAL_MS) last = { body: encoder.encode(prometheusText()), atMs: now }
    return last.body
  }
}

/** Every refusal of this port in the service's error envelope, as on the public one. */
const refusal = (request: Request, status: number, code: "not_found" | "bad_request" | "internal_error", message: string) => {
  const answer = bareErrorAnswer(status, envelope(code, message))
  return toWebResponse(request.method, status === 405 ? { ...answer, headers: { ...answer.headers, allow: "GET, HEAD" } } : answer)
}

const answer = (rendered: () => Uint8Array) => (request: Request) => {
  if (pathOf(pathAndQuery(request.url)) !== "/metrics") return refusal(request, 404, "not_found", "The metrics are at /metrics.")
  if (request.method !== "GET" && request.method !== "HEAD") {
    return refusal(request, 405, "bad_request", "The metrics answer GET and HEAD only.")
  }
  const body = rendered()
  return new Response(request.method === "HEAD" ? null : body, { headers: METRICS_HEADERS })
}

/**
 * The metrics in Prometheus text at `/metrics` on a listener of its own (METRICS_PORT), when
 * METRICS=prometheus: never on the public port, so neither clients nor the rate limit meet it,
 * and rendered at most once a second however many scrape it. Closed after the public server.
 */
export const MetricsListenerLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.metrics !== "prometheus") return
    const server = yield* Effect.acquireRelease(
      Effect.sync(() =>
        Bun.serve({
          port: config.metricsPort,
          fetch: answer(makeRendered()),
          error: () =>
            toWebResponse("GET", bareErrorAnswer(500, envelope("internal_error", "The metrics could not be rendered.")))
        })
      ),
      (server) => Effect.sync(() => void server.stop())
    )
    yield* Effect.logInfo(`Serving metrics on http://0.0.0.0:${server.port}/metrics`)
  })
)
