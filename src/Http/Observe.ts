import type { LineSink } from "../Logging.js"
import { type Answer, bodyBytes } from "./Answer.js"
import { echo } from "../Contract/Errors.js"

/** What one request's log line says. */
export interface RequestLine {
  readonly method: string
  readonly path: string
  /** the route template the path matched, as the edge found it */
  readonly route: string | undefined
  readonly status: number
  readonly durationMs: number
  readonly bytes: number
  readonly traceId: string
  /** the request's span: its server span's id, or the one its `traceparent` response header names */
  readonly spanId: string
  readonly clientAddress: string
  /** what the edge decided: `ratelimit.outcome` (allowed, limited, exempt) and `cache` (hit, miss) */
  readonly outcomes: Readonly<Record<string, string>>
}

/** What the edge decided, read off the answer's own headers. */
export const outcomesOf = (answer: Answer): Record<string, string> => {
  const outcomes: Record<string, string> = {
    "ratelimit.outcome": answer.status === 429 ? "limited" : answer.headers["ratelimit"] !== undefined ? "allowed" : "exempt"
  }
  const cache = answer.headers["x-cache"]
  if (cache !== undefined) outcomes["cache"] = cache
  return outcomes
}

/** Bytes of the body as sent: none for HEAD, 204 and 304. */
export const bytesOf = (method: string, answer: Answer) => {
  if (method === "HEAD" || answer.body === undefined) return 0
  return bodyBytes(answer.body)
}

/** The one log line of a request, named by its route: from the pipeline and the front door alike. */
export const writeRequestLine = (write: LineSink, line: RequestLine) => {
  const route = line.route
  write({
    timestamp: Date.now(),
    level: "Info",
    message: `${line.method} ${route ?? line.path} ${line.status}`,
    attributes: {
      trace_id: line.traceId,
      span_id: line.spanId,
      "http.request.method": line.method,
      "http.route": route ?? "",
      "url.path": echo(line.path, 256),
      "http.response.status_code": line.status,
      // seconds, to the microsecond
      "http.server.request.duration": Math.round(line.durationMs * 1000) / 1e6,
      "http.response.body.size": line.bytes,
      "client.address": line.clientAddress,
      ...line.outcomes
    }
  })
}
