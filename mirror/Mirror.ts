import { makePolite } from "./Http.js"
import { makeRowReader } from "./Rows.js"
import { loadSnapshot, readManifest } from "./Snapshot.js"
import { openStore, type Store, type StoredRow } from "./Store.js"

export interface MirrorOptions {
  /** the service's base URL (`https://api.example.my`) */
  readonly from: string
  /** the SQLite file */
  readonly into: string
  /** keep polling once caught up */
  readonly follow: boolean
  /** entries per feed page (the feed's `limit`, 1-1000) */
  readonly pageSize: number
  /** detail requests in flight at once */
  readonly concurrency: number
  /** pause between polls once caught up (with `follow`) */
  readonly pollMs: number
  readonly log: (line: string) => void
}

export const DEFAULTS = { follow: false, pageSize: 1000, concurrency: 4, pollMs: 5000 } as const

interface Entry {
  readonly type: string
  readonly id: number | string
  readonly change: "upsert" | "remove"
  readonly at: string
}

/** With `follow`, the pause before starting again after a failure (the service down past the retries) */
const FOLLOW_RETRY_MS = 30_000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Runs `work` over `items` with at most `limit` at once, results in the items' order. */
const mapBounded = async <A, B>(items: ReadonlyArray<A>, limit: number, work: (item: A) => Promise<B>): Promise<Array<B>> => {
  const results = new Array<B>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const at = next++
      results[at] = await work(items[at]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** Where to start: the stored cursor; else the snapshot, loaded; else the feed's beginning. */
const start = async (options: MirrorOptions, store: Store, http: ReturnType<typeof makePolite>): Promise<string | undefined> => {
  const stored = store.cursor()
  if (stored !== undefined) {
    options.log(`resuming from the stored cursor (${store.count()} rows)`)
    return stored
  }
  const manifest = await readManifest(http, options.from)
  if (manifest === undefined) {
    options.log("no snapshot served; replaying the feed from its beginning")
    return undefined
  }
  options.log(`loading the snapshot of ${manifest.created_at} (${manifest.files.length} files)`)
  await loadSnapshot(http, options.from, manifest, store, options.log)
  options.log(`snapshot loaded: ${store.count()} rows`)
  return manifest.cursor
}

/** Reads rows with at most `concurrency` requests at once; `recheck`: note cached answers to read again. */
const readRows = (
  rows: ReturnType<typeof makeRowReader>,
  concurrency: number,
  keys: ReadonlyArray<{ readonly type: string; readonly id: string; readonly change: "upsert" | "remove" }>,
  recheck: boolean
): Promise<Array<StoredRow>> =>
  mapBounded(keys, concurrency, async ({ type, id, change }) => {
    if (change === "remove") return { type, id, json: undefined, recheckAt: undefined }
    const { json, recheckMs } = await rows.read(type, id)
    return { type, id, json, recheckAt: recheck && recheckMs !== undefined ? Date.now() + recheckMs : undefined }
  })

/**
 * Builds or updates the mirror in `options.into` from the service at `options.from`, until caught
 * up (or, with `follow`, for ever). Each feed page is applied with its cursor in one transaction.
 */
export const runMirror = async (options: MirrorOptions): Promise<void> => {
  const store = openStore(options.into, options.from)
  const source = store.source()
  if (source !== undefined && source !== options.from) {
    store.close()
    throw new Error(`${options.into} mirrors ${source}, not ${options.from}`)
  }
  const http = makePolite({ concurrency: options.concurrency, log: options.log })
  const rows = makeRowReader(http, options.from)
  const rateLimitWaits = () => (http.waitedMs() > 0 ? `; ${Math.round(http.waitedMs() / 1000)} s waited for the rate limit so far` : "")

  /** Reads again the rows whose cached answers have expired by now; how many. */
  const recheckDue = async () => {
    const { due } = store.rechecks(Date.now())
    if (due.length === 0) return 0
    rows.refresh()
    store.apply(await readRows(rows, options.concurrency, due.map((key) => ({ ...key, change: "upsert" as const })), false), undefined)
    options.log(`read again ${due.length} rows a cache had answered; ${store.count()} rows`)
    return due.length
  }

  /** From the file's state to caught up (or, following, for ever). */
  const run = async () => {
    let cursor = await start(options, store, http)
    let pages = 0
    let caughtUp = false
    for (;;) {
      await recheckDue()
      const query = new URLSearchParams({ limit: String(options.pageSize) })
      if (cursor !== undefined) query.set("since", cursor)
      const response = await http.get(`${options.from}/v1/changes?${query}`)
      const text = await response.text()
      if (response.status !== 200) throw new Error(`GET /v1/changes: ${response.status} ${text.slice(0, 200)}`)
      const page = JSON.parse(text) as { data: ReadonlyArray<Entry>; meta: { next_cursor: string } }
      const next = page.meta.next_cursor
      if (next === cursor) {
        const { next: recheckAt } = store.rechecks(Date.now())
        if (!caughtUp) {
          const pending = recheckAt === undefined ? "" : `; rows a cache answered are read again in ${Math.ceil((recheckAt - Date.now()) / 1000)} s`
          options.log(`caught up: ${store.count()} rows${pending}`)
        }
        caughtUp = true
        if (!options.follow && recheckAt === undefined) return
        const untilRecheck = recheckAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, recheckAt - Date.now())
        await sleep(Math.min(options.follow ? options.pollMs : Number.POSITIVE_INFINITY, untilRecheck))
        continue
      }
      // the last entry of a row in the page decides; an upsert is read now (404: no longer public)
      const last = new Map<string, { type: string; id: string; change: "upsert" | "remove" }>()
      for (const entry of page.data) last.set(`${entry.type}\u0000${entry.id}`, { type: entry.type, id: String(entry.id), change: entry.change })
      rows.refresh()
      const changes = await readRows(rows, options.concurrency, [...last.values()], true)
      store.apply(changes, next)
      cursor = next
      pages++
      caughtUp = false
      const stored = changes.filter((row) => row.json !== undefined).length
      options.log(`feed page ${pages}: ${page.data.length} entries, ${stored} rows stored, ${changes.length - stored} removed; ${store.count()} rows${rateLimitWaits()}`)
    }
  }

  try {
    for (;;) {
      try {
        return await run()
      } catch (error) {
        // a follower outlives an outage: what failed was not written, so it starts again from the file
        if (!options.follow) throw error
        options.log(`${error instanceof Error ? error.message : String(error)}; starting again in ${FOLLOW_RETRY_MS / 1000} s`)
        await sleep(FOLLOW_RETRY_MS)
      }
    }
  } finally {
    store.close()
  }
}
