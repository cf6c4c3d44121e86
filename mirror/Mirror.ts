import { makePolite } from "./Http.js"
import { makeRowReader } from "./Rows.js"
import { loadSnapshot, readManifest } from "./Snapshot.js"
import { openStore, type Store } from "./Store.js"

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
}

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
  try {
    let cursor = await start(options, store, http)
    let pages = 0
    let caughtUp = false
    for (;;) {
      const query = new URLSearchParams({ limit: String(options.pageSize) })
      if (cursor !== undefined) query.set("since", cursor)
      const response = await http.get(new URL(`/v1/changes?${query}`, options.from).toString())
      const text = await response.text()
      if (response.status !== 200) throw new Error(`GET /v1/changes: ${response.status} ${text.slice(0, 200)}`)
      const page = JSON.parse(text) as { data: ReadonlyArray<Entry>; meta: { next_cursor: string } }
      const next = page.meta.next_cursor
      if (next === cursor) {
        if (!caughtUp) options.log(`caught up: ${store.count()} rows`)
        caughtUp = true
        if (!options.follow) return
        await sleep(options.pollMs)
        continue
      }
      // the last entry of a row in the page decides; an upsert is read now (404: no longer public)
      const last = new Map<string, Entry>()
      for (const entry of page.data) last.set(`${entry.type}\u0000${entry.id}`, entry)
      rows.refresh()
      const changes = await mapBounded([...last.values()], options.concurrency, async (entry) => {
        const id = String(entry.id)
        const json = entry.change === "upsert" ? await rows.read(entry.type, id) : undefined
        return [entry.type, id, json] as const
      })
      store.applyPage(changes, next)
      cursor = next
      pages++
      caughtUp = false
      const upserts = changes.filter(([, , json]) => json !== undefined).length
      const waited = http.waitedMs() > 0 ? `; ${Math.round(http.waitedMs() / 1000)} s waited for the rate limit so far` : ""
      options.log(`feed page ${pages}: ${page.data.length} entries, ${upserts} rows stored, ${changes.length - upserts} removed; ${store.count()} rows${waited}`)
    }
  } finally {
    store.close()
  }
}
