import { randomBytes } from "node:crypto"
import { connect, type Socket } from "node:net"

/** One request a keep-alive client sent, and what became of it. */
export interface Exchange {
  readonly traceId: string
  /** sent on a connection an earlier answer had left open (it did not say `Connection: close`) */
  readonly reused: boolean
  /** the answer's status; undefined when the connection closed with no answer */
  readonly status: number | undefined
  readonly close: boolean
}

interface Reply {
  readonly status: number
  readonly close: boolean
}

/** An HTTP/1.1 connection that sends one request at a time and reads each answer by its Content-Length. */
export class Connection {
  private buffer = Buffer.alloc(0)
  private pending: ((reply: Reply | undefined) => void) | undefined
  /** Resolves when the connection closes, whoever closed it. */
  readonly closed: Promise<void>

  constructor(private readonly socket: Socket) {
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()))
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.read()
    })
    socket.on("error", () => undefined)
    socket.on("close", () => this.settle(undefined))
  }

  static open = (host: string, port: number) =>
    new Promise<Connection | undefined>((resolve) => {
      const socket = connect({ host, port }, () => resolve(new Connection(socket)))
      socket.once("error", () => resolve(undefined))
    })

  /** The answer; undefined when the connection closes without one (or had closed). */
  send = (head: string) =>
    new Promise<Reply | undefined>((resolve) => {
      if (this.socket.readyState !== "open") return resolve(undefined)
      this.pending = resolve
      this.socket.write(head)
    })

  destroy = () => this.socket.destroy()

  private settle(reply: Reply | undefined) {
    const pending = this.pending
    this.pending = undefined
    pending?.(reply)
  }

  private read() {
    const end = this.buffer.indexOf("\r\n\r\n")
    if (end === -1) return
    const head = this.buffer.subarray(0, end).toString("latin1")
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
    if (this.buffer.length < end + 4 + length) return
    this.buffer = this.buffer.subarray(end + 4 + length)
    this.settle({ status: Number(head.slice(9, 12)), close: /\r\nconnection: *close/i.test(head) })
  }
}

/** A GET's head, with a trace id of its own (the service's log line names it). */
export const getHead = (baseUrl: string, path: string, traceId = randomBytes(16).toString("hex")) =>
  `GET ${path} HTTP/1.1\r\nHost: ${new URL(baseUrl).host}\r\ntraceparent: 00-${traceId}-${randomBytes(8).toString("hex")}-01\r\n\r\n`

/**
 * `connections` clients, each sending GETs of `paths` one after another on one kept-alive
 * connection, and opening a new one only when an answer said `Connection: close` or the connection
 * closed, until `until` settles. Each request has its own trace id (traceparent), which the
 * service's log line names.
 */
export const keepAliveLoad = async (baseUrl: string, paths: ReadonlyArray<string>, connections: number, until: Promise<unknown>) => {
  const { hostname, port } = new URL(baseUrl)
  const exchanges: Array<Exchange> = []
  let running = true
  void until.finally(() => (running = false))
  await Promise.all(Array.from({ length: connections }, async (_, worker) => {
    let connection: Connection | undefined
    let reused = false
    for (let n = worker; running; n += connections) {
      if (connection === undefined) {
        connection = await Connection.open(hostname, Number(port))
        reused = false
        if (connection === undefined) {
          await Bun.sleep(5)
          continue
        }
      }
      const traceId = randomBytes(16).toString("hex")
      const reply = await connection.send(getHead(baseUrl, paths[n % paths.length]!, traceId))
      exchanges.push({ traceId, reused, status: reply?.status, close: reply?.close ?? false })
      if (reply === undefined || reply.close) {
        connection.destroy()
        connection = undefined
      } else {
        reused = true
      }
    }
    connection?.destroy()
  }))
  return exchanges
}
