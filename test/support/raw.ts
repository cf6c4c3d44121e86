import { connect } from "node:net"

/** What came back on the wire: `undefined` status when the server closed without an answer. */
export interface RawReply {
  readonly status: number | undefined
  readonly headers: Headers
  readonly body: string
  /** every byte received, for cases where the answer is not HTTP */
  readonly raw: string
}

/**
 * Sends `head` (and `body`) exactly as given over one TCP connection and reads until the server
 * closes it: for request targets and heads that fetch would rewrite or refuse to send.
 */
export const rawExchange = (baseUrl: string, head: string, body = "", timeoutMs = 5_000): Promise<RawReply> => {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    // write, not end: Bun takes a half-closed connection for a client that has gone away
    const socket = connect({ host: hostname, port: Number(port) }, () => void socket.write(head + body))
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no end of answer within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearTimeout(timer)
      const raw = Buffer.concat(chunks).toString("latin1")
      const split = raw.indexOf("\r\n\r\n")
      const lines = (split === -1 ? raw : raw.slice(0, split)).split("\r\n")
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1]
      const headers = new Headers()
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":")
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
      }
      resolve({
        status: status === undefined ? undefined : Number(status),
        headers,
        body: split === -1 ? "" : Buffer.from(raw.slice(split + 4), "latin1").toString("utf8"),
        raw
      })
    })
  })
}

/** A GET of exactly `target` (no normalisation), the connection closed after the answer. */
export const rawGet = (baseUrl: string, target: string, headers: Record<string, string> = {}) =>
  rawExchange(
    baseUrl,
    `GET ${target} HTTP/1.1\r\nHost: ${new URL(baseUrl).host}\r\nConnection: close\r\n` +
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "\r\n"
  )
