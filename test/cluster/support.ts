import http from "node:http"
import { clusterSql, readState, type ClusterState } from "../../cluster/Cluster.js"

/** The cluster test/cluster/run.ts started (CLUSTER_DIR). */
export const cluster = (): ClusterState => {
  const state = readState(process.env.CLUSTER_DIR)
  if (state === undefined) throw new Error("no cluster: run these through `bun run test:cluster`")
  return state
}

export interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly bytes: Buffer
}

/** Waits until `names` have replayed everything the primary has written so far. */
export const standbysCaughtUp = async (state: ClusterState, names: ReadonlyArray<"standby1" | "standby2"> = ["standby1", "standby2"]) => {
  const target = clusterSql(state, "primary", "SELECT pg_current_wal_lsn()").trim()
  for (const name of names) {
    for (let i = 0; i < 400; i++) {
      if (clusterSql(state, name, `SELECT pg_last_wal_replay_lsn() >= '${target}'::pg_lsn`).trim() === "t") break
      await Bun.sleep(50)
    }
  }
}

let sent = 0
/** A loopback address of its own for each request (127.1.0.0/16), so that no test meets the rate limit by chance. */
const anyClient = () => `127.1.${(sent >> 8) % 256}.${1 + (sent++ % 250)}`

/**
 * One GET from a chosen loopback address (127.0.0.0/8 is all ours): the proxy sees a distinct
 * client for each, as it would for distinct machines. Without `from`, each request has its own.
 */
export const get = (base: string, path: string, options: { readonly from?: string; readonly headers?: Record<string, string>; readonly method?: string } = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(path, base)
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? "GET",
        headers: { connection: "close", ...options.headers },
        agent: false,
        localAddress: options.from ?? anyClient()
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const bytes = Buffer.concat(chunks)
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: bytes.toString("utf8"), bytes })
        })
        response.on("error", reject)
      }
    )
    request.setTimeout(15_000, () => request.destroy(new Error("timeout")))
    request.on("error", reject)
    request.end()
  })

/** Public paths that reach a replica (a fresh query string misses the front cache), from many client addresses. */
export interface LoadResult {
  readonly sent: number
  readonly failures: ReadonlyArray<string>
}

export const runLoad = async (base: string, paths: ReadonlyArray<string>, until: Promise<unknown>, concurrency = 6): Promise<LoadResult> => {
  let sent = 0
  let running = true
  const failures: Array<string> = []
  void until.finally(() => (running = false))
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (running) {
        const n = sent++
        const path = `${paths[n % paths.length]}${paths[n % paths.length]!.includes("?") ? "&" : "?"}load=${n}`
        // spread over 200 addresses so that no client meets its rate limit
        const from = `127.0.${1 + (n % 200)}.${1 + worker}`
        try {
          const answer = await get(base, path, { from })
          if (answer.status !== 200) failures.push(`${answer.status} ${path} ${answer.body.slice(0, 120)}`)
        } catch (error) {
          failures.push(`${String(error)} ${path}`)
        }
      }
    })
  )
  return { sent, failures }
}

export const PUBLIC_PATHS = [
  "/v1/songs?limit=5",
  "/v1/songs/1",
  "/v1/artists?limit=5",
  "/v1/albums/1",
  "/v1/search?q=cinta",
  "/v1/genres",
  "/v1/stats"
]
