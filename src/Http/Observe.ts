import type { InfoLineWriter } from "../Logging.js"
import type { Answer } from "./Answer.js"
import { echo } from "../Domain/Errors.js"

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
  readonly spanId: string
  readonly clientAddress: string
  /** what the edge decided: `ratelimit.outcome` (allowed, limited, exempt) and `cache` (hit, miss) */
  readonly annotations: Readonly<Record<string, string>>
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
  return typeof answer.body === "string" ? Buffer.byteLength(answer.body) : answer.body.byteLength
}

/** The one log line of a request, named by its route: from the pipeline and the front door alike. */
export const writeRequestLine = (write: InfoLineWriter, line: RequestLine, fiberId?: number) => {
  const route = line.route
  write(`${line.method} ${route ?? line.path} ${line.status}`, {
    "http.request.method": line.method,
    "http.route": route ?? "",
    "url.path": echo(line.path, 256),
    "http.response.status_code": line.status,
    duration_ms: Math.round(line.durationMs * 10) / 10,
    bytes: line.bytes,
    trace_id: line.traceId,
    span_id: line.spanId,
    "client.address": line.clientAddress,
    ...line.annotations
  }, fiberId)
}
