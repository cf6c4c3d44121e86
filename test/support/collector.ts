import { createServer, type Server, type Socket } from "node:net"

/**
 * OTLP/HTTP collectors on loopback for the telemetry tests: one that records what it is sent
 * (and answers 200), one that accepts connections and never answers. They listen on a free port
 * from TEST_PORT_BASE on when it is set (machines that share loopback hand out port ranges),
 * else on any free port.
 */
const PORT_BASE = Number(process.env.TEST_PORT_BASE ?? 0)
let nextPort = PORT_BASE

const listen = async <A>(bind: (port: number) => A | Promise<A>): Promise<A> => {
  if (PORT_BASE === 0) return bind(0)
  for (let attempts = 0; attempts < 200; attempts++) {
    try {
      return await bind(nextPort++)
    } catch {
      // in use: the next one
    }
  }
  throw new Error(`no free port from TEST_PORT_BASE=${PORT_BASE}`)
}

export interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly doubleValue?: number
  readonly boolValue?: boolean
}
export interface KeyValue {
  readonly key: string
  readonly value: OtlpValue
}
export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<KeyValue>
}
export interface OtlpLogRecord {
  readonly body: OtlpValue
  readonly severityText?: string
  readonly traceId?: string
  readonly spanId?: string
  readonly attributes: ReadonlyArray<KeyValue>
}

/** One POST the collector received: its path, headers, resource attributes and what it carried. */
export interface Received {
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly resource: ReadonlyArray<KeyValue>
  readonly spans: ReadonlyArray<OtlpSpan>
  readonly logRecords: ReadonlyArray<OtlpLogRecord>
  readonly metricNames: ReadonlyArray<string>
}

/** `resourceSpans`, `resourceLogs` or `resourceMetrics`: resources, each with scopes of items. */
type Resources = ReadonlyArray<{ readonly resource?: { readonly attributes: ReadonlyArray<KeyValue> } } & Record<string, unknown>>

const flatten = <T>(groups: Resources | undefined, scopesKey: string, itemsKey: string): Array<T> =>
  (groups ?? []).flatMap((group) =>
    ((group[scopesKey] ?? []) as ReadonlyArray<Record<string, unknown>>).flatMap((scope) => (scope[itemsKey] ?? []) as ReadonlyArray<T>)
  )

export const attributeOf = (attributes: ReadonlyArray<KeyValue>, key: string) => {
  const value = attributes.find((a) => a.key === key)?.value
  if (value === undefined) return undefined
  return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue ?? value.boolValue)
}

/** A collector that keeps every export it receives, JSON-decoded, and answers `{}`. */
export const startRecordingCollector = async () => {
  const received: Array<Received> = []
  const server = await listen((port) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch: async (request) => {
        if (request.method !== "POST") return new Response(null, { status: 405 })
        const body = (await request.json()) as {
          readonly resourceSpans?: Resources
          readonly resourceLogs?: Resources
          readonly resourceMetrics?: Resources
        }
        const groups = body.resourceSpans ?? body.resourceLogs ?? body.resourceMetrics ?? []
        received.push({
          path: new URL(request.url).pathname,
          headers: Object.fromEntries(request.headers),
          resource: groups[0]?.resource?.attributes ?? [],
          spans: flatten<OtlpSpan>(body.resourceSpans, "scopeSpans", "spans"),
          logRecords: flatten<OtlpLogRecord>(body.resourceLogs, "scopeLogs", "logRecords"),
          metricNames: flatten<{ readonly name: string }>(body.resourceMetrics, "scopeMetrics", "metrics").map((m) => m.name)
        })
        return Response.json({})
      }
    })
  )
  const spans = () => received.flatMap((r) => r.spans)
  const logRecords = () => received.flatMap((r) => r.logRecords)
  /** Waits until `found` finds something in what arrived (exports come in batches). */
  const waitFor = async <A>(found: () => A | undefined, what: string, timeoutMs = 15_000): Promise<A> => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const value = found()
      if (value !== undefined) return value
      await Bun.sleep(50)
    }
    throw new Error(`no ${what} within ${timeoutMs} ms; paths received: ${[...new Set(received.map((r) => r.path))].join(", ")}`)
  }
  const waitForSpan = (predicate: (span: OtlpSpan) => boolean, timeoutMs?: number) =>
    waitFor(() => spans().find(predicate), "such span", timeoutMs)
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    spans,
    logRecords,
    waitFor,
    waitForSpan,
    stop: () => server.stop(true)
  }
}

export type RecordingCollector = Awaited<ReturnType<typeof startRecordingCollector>>

/** A collector that accepts connections, reads what it is sent and never answers: a hung collector. */
export const startSilentCollector = async () => {
  const open = new Map<Socket, string>()
  const peak: Record<string, number> = {}
  let accepted = 0
  const server: Server = createServer((socket) => {
    accepted++
    open.set(socket, "")
    socket.on("data", (chunk: Buffer) => {
      if (open.get(socket) !== "") return
      const path = /^[A-Z]+ (\S+)/.exec(chunk.toString("latin1"))?.[1] ?? "?"
      open.set(socket, path)
      peak[path] = Math.max(peak[path] ?? 0, [...open.values()].filter((other) => other === path).length)
    })
    socket.on("error", () => undefined)
    socket.on("close", () => open.delete(socket))
  })
  const port = await listen((port) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
    })
  )
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    /** The most connections open at once, by the path their first request named. */
    peakOpenByPath: (): Readonly<Record<string, number>> => ({ ...peak }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of open.keys()) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** A port nothing listens on now, for a server another process will start. */
export const freePort = () =>
  listen((port) =>
    new Promise<number>((resolve, reject) => {
      const probe = createServer()
      probe.once("error", reject)
      probe.listen(port, "127.0.0.1", () => {
        const bound = (probe.address() as { port: number }).port
        probe.close(() => resolve(bound))
      })
    })
  )
