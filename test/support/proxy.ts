import type { Socket, TCPSocketListener } from "bun"

/**
 * A TCP proxy on loopback between the service and PostgreSQL that a test puts in the way:
 * `pause` holds every byte (a frozen database), `drop` closes every connection and refuses new
 * ones (a stopped database), `resume` lets traffic through again (held bytes first).
 */
export interface FaultProxy {
  readonly port: number
  /** the target URL with its host and port replaced by the proxy's */
  readonly url: string
  readonly pause: () => void
  readonly drop: () => void
  readonly resume: () => void
  readonly stop: () => void
  /** From now on, keeps what the service sends the database; the function returned stops and gives it as text. */
  readonly watch: () => () => string
}

interface Side {
  socket: Socket<Pipe> | undefined
  /** bytes for this side not written yet (held while paused, or before it connected) */
  readonly queue: Array<Uint8Array>
}

interface Pipe {
  readonly client: Side
  readonly server: Side
}

export const startFaultProxy = async (targetUrl: string): Promise<FaultProxy> => {
  const target = new URL(targetUrl)
  const targetPort = Number(target.port || 5432)
  let paused = false
  let watched: Array<string> | undefined
  let listener: TCPSocketListener<Pipe> | undefined
  const pipes = new Set<Pipe>()

  const flush = (side: Side) => {
    if (paused || side.socket === undefined) return
    while (side.queue.length > 0) {
      const chunk = side.queue[0]!
      const written = side.socket.write(chunk)
      if (written < chunk.length) {
        side.queue[0] = chunk.subarray(Math.max(written, 0))
        return
      }
      side.queue.shift()
    }
  }
  const send = (side: Side, data: Uint8Array) => {
    side.queue.push(new Uint8Array(data))
    flush(side)
  }
  const close = (pipe: Pipe) => {
    pipes.delete(pipe)
    pipe.client.socket?.end()
    pipe.server.socket?.end()
  }

  const listen = (port: number) =>
    Bun.listen<Pipe>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          const pipe: Pipe = { client: { socket, queue: [] }, server: { socket: undefined, queue: [] } }
          socket.data = pipe
          pipes.add(pipe)
          Bun.connect<Pipe>({
            hostname: target.hostname,
            port: targetPort,
            data: pipe,
            socket: {
              open(upstream) {
                pipe.server.socket = upstream
                if (!pipes.has(pipe)) return void upstream.end()
                flush(pipe.server)
              },
              data(_, data) {
                send(pipe.client, data)
              },
              drain() {
                flush(pipe.server)
              },
              close() {
                close(pipe)
              },
              error() {
                close(pipe)
              }
            }
          }).catch(() => close(pipe))
        },
        data(socket, data) {
          watched?.push(Buffer.from(data).toString("latin1"))
          send(socket.data.server, data)
        },
        drain(socket) {
          flush(socket.data.client)
        },
        close(socket) {
          close(socket.data)
        },
        error(socket) {
          close(socket.data)
        }
      }
    })

  listener = listen(0)
  const port = listener.port
  const url = new URL(targetUrl)
  url.hostname = "127.0.0.1"
  url.port = String(port)

  return {
    port,
    url: url.toString(),
    pause: () => {
      paused = true
    },
    drop: () => {
      listener?.stop(true)
      listener = undefined
      for (const pipe of [...pipes]) close(pipe)
    },
    resume: () => {
      paused = false
      listener ??= listen(port)
      for (const pipe of pipes) {
        flush(pipe.server)
        flush(pipe.client)
      }
    },
    stop: () => {
      listener?.stop(true)
      listener = undefined
      for (const pipe of [...pipes]) close(pipe)
    },
    watch: () => {
      const sent: Array<string> = []
      watched = sent
      return () => {
        if (watched === sent) watched = undefined
        return sent.join("")
      }
    }
  }
}
