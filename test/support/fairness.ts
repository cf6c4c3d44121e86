/**
 * One client at its full rate against another client's latency (docs/edge.md, "Requests in
 * flight"): shared by test/fairness.test.ts (the fixture) and the bench's `--fairness` (a
 * catalogue). The server must run with TRUST_PROXY=1: each client is its own X-Forwarded-For.
 *
 * Client A sends heavy searches over 16 keep-alive connections, each sending its next as soon as
 * the last is answered (after a 429, when a token is back): its 360-token burst, then 6 a second.
 * Client B browses lists and details, one request at a time. B alone and B under A's load are
 * measured in turns (alone, loaded, alone, ...) so that the machine's drift falls on both.
 */

export const A_CONNECTIONS = 16
export const CLIENT_A = "198.51.100.200"
/** B spread over addresses of its own: it needs more samples than one bucket holds. */
const clientB = (i: number) => `198.51.101.${i % 64}`

/** The p-th percentile (0-100) of the samples, nearest rank. */
export const percentile = (samples: ReadonlyArray<number>, p: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

const get = (baseUrl: string, path: string, client: string) => fetch(baseUrl + path, { headers: { "x-forwarded-for": client } })

/** B's paths: the first pages of three lists and the details of the songs and artists they name. */
export const browsePaths = async (baseUrl: string): Promise<ReadonlyArray<string>> => {
  const ids = async (path: string) =>
    ((await (await get(baseUrl, path, clientB(0))).json()) as { data: Array<{ id: number }> }).data.map((row) => row.id)
  return [
    "/v1/songs?limit=20",
    "/v1/artists?limit=20",
    "/v1/albums?limit=20",
    ...(await ids("/v1/songs?limit=20")).map((id) => `/v1/songs/${id}`),
    ...(await ids("/v1/artists?limit=20")).map((id) => `/v1/artists/${id}`)
  ]
}

/** Hostile searches: 100 characters of twelve common words in turn, and a Han title after them. */
export const heavySearches: ReadonlyArray<string> = (() => {
  const words = ["cinta", "lagu", "rindu", "malam", "hati", "sayang", "bulan", "bintang", "hujan", "kasih", "dunia", "mimpi"]
  return Array.from({ length: 32 }, (_, i) => {
    const q = [...words.slice(i % 12), ...words.slice(0, i % 12), "月亮代表我的心"].join(" ").slice(0, 100)
    return `/v1/search?q=${encodeURIComponent(q)}`
  })
})()

export interface FairnessOptions {
  readonly baseUrl: string
  readonly browse: ReadonlyArray<string>
  readonly searches: ReadonlyArray<string>
  /** turns of B alone around the loaded ones: alone, loaded, alone, ..., alone */
  readonly loadedTurns: number
  readonly aloneMs: number
  readonly loadedMs: number
}

export interface FairnessResult {
  /** B's latencies in ms */
  readonly alone: ReadonlyArray<number>
  readonly loaded: ReadonlyArray<number>
  /** B's answers other than 200 (a 5xx is what must not happen) */
  readonly bFailures: ReadonlyArray<string>
  /** A's answers by status */
  readonly aStatuses: Readonly<Record<number, number>>
  readonly loadedSeconds: number
}

export const measureFairness = async (options: FairnessOptions): Promise<FairnessResult> => {
  const { baseUrl, browse, searches } = options
  const alone: Array<number> = []
  const loaded: Array<number> = []
  const bFailures: Array<string> = []
  const aStatuses: Record<number, number> = {}
  let sent = 0

  const browseFor = async (ms: number, into: Array<number>) => {
    const until = performance.now() + ms
    while (performance.now() < until) {
      const path = browse[sent % browse.length]!
      const started = performance.now()
      const response = await get(baseUrl, path, clientB(sent++))
      await response.arrayBuffer()
      into.push(performance.now() - started)
      if (response.status !== 200) bFailures.push(`${response.status} ${path}`)
      await Bun.sleep(1)
    }
  }

  let aRunning = false
  let searched = 0
  const connectionA = async () => {
    while (aRunning) {
      const response = await get(baseUrl, searches[searched++ % searches.length]!, CLIENT_A)
      await response.arrayBuffer()
      aStatuses[response.status] = (aStatuses[response.status] ?? 0) + 1
      if (response.status === 429) await Bun.sleep(1000 / 6)
    }
  }

  await browseFor(300, []) // warm: connections, plans
  await browseFor(options.aloneMs, alone)
  let loadedMs = 0
  for (let turn = 0; turn < options.loadedTurns; turn++) {
    aRunning = true
    const started = performance.now()
    const clientA = Array.from({ length: A_CONNECTIONS }, connectionA)
    await browseFor(options.loadedMs, loaded)
    aRunning = false
    await Promise.all(clientA)
    loadedMs += performance.now() - started
    await browseFor(options.aloneMs, alone)
  }
  return { alone, loaded, bFailures, aStatuses, loadedSeconds: loadedMs / 1000 }
}

/** One line of figures, for the test's output and the bench's log. */
export const describeFairness = (result: FairnessResult) => {
  const figures = (samples: ReadonlyArray<number>) =>
    `p50 ${percentile(samples, 50).toFixed(1)} ms, p99 ${percentile(samples, 99).toFixed(1)} ms (n=${samples.length})`
  return `B alone ${figures(result.alone)}; B under A's load ${figures(result.loaded)}; ` +
    `A's answers ${JSON.stringify(result.aStatuses)} in ${result.loadedSeconds.toFixed(1)} s`
}
