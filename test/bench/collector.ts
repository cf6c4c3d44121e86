/**
 * An OTLP/HTTP collector for the bench, in the bench's process: it reads every export as a real
 * collector would (JSON-decoded) and answers 200, keeping only counts.
 */
export interface BenchCollector {
  readonly url: string
  readonly received: () => { readonly spans: number; readonly metricExports: number; readonly logRecords: number }
  readonly stop: () => void
}

type Groups = ReadonlyArray<Record<string, ReadonlyArray<Record<string, ReadonlyArray<unknown> | undefined>> | undefined>>

const itemsOf = (groups: Groups | undefined, scopes: string, items: string) =>
  (groups ?? []).reduce((sum, group) => sum + (group[scopes] ?? []).reduce((n, scope) => n + (scope[items]?.length ?? 0), 0), 0)

export const startBenchCollector = (port: number): BenchCollector => {
  let spans = 0
  let metricExports = 0
  let logRecords = 0
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch: async (request) => {
      const body = (await request.json()) as { resourceSpans?: Groups; resourceMetrics?: Groups; resourceLogs?: Groups }
      spans += itemsOf(body.resourceSpans, "scopeSpans", "spans")
      logRecords += itemsOf(body.resourceLogs, "scopeLogs", "logRecords")
      if (body.resourceMetrics !== undefined) metricExports++
      return Response.json({})
    }
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    received: () => ({ spans, metricExports, logRecords }),
    stop: () => void server.stop(true)
  }
}
