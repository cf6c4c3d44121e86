import { Database } from "bun:sqlite"

/**
 * The mirror's file: `rows` holds, per public row, the JSON of the `data` of its public answer
 * (users keyed by username, every other type by its id), `state` the one feed cursor the rows
 * stand at, and `rechecks` the rows to read again once a cached answer has expired
 * (mirror/Rows.ts). Rows, cursor and rechecks only ever change together, in one transaction.
 */
export interface Store {
  readonly source: () => string | undefined
  readonly cursor: () => string | undefined
  readonly count: () => number
  /**
   * Applies rows read (json) or gone (undefined) with their rechecks, and the page's cursor (none:
   * the rows of due rechecks, whose own entries go), atomically.
   */
  readonly apply: (rows: ReadonlyArray<StoredRow>, cursor: string | undefined) => void
  /** Rechecks due by `now` (epoch ms), and the time of the next one still ahead. */
  readonly rechecks: (now: number) => { readonly due: ReadonlyArray<{ readonly type: string; readonly id: string }>; readonly next: number | undefined }
  /** Starts replacing everything (a snapshot load); nothing shows until `commit`. */
  readonly beginLoad: () => Loader
  readonly close: () => void
}

export interface StoredRow {
  readonly type: string
  readonly id: string
  readonly json: string | undefined
  /** read again at this instant (epoch ms) */
  readonly recheckAt: number | undefined
}

export interface Loader {
  readonly insert: (type: string, id: string, json: string) => void
  readonly commit: (cursor: string) => void
  readonly rollback: () => void
}

export const openStore = (path: string, source: string): Store => {
  const db = new Database(path, { create: true, strict: true })
  // WAL: a killed process loses at most the page it was applying, never a committed one
  db.run("PRAGMA journal_mode = WAL")
  db.run("PRAGMA synchronous = NORMAL")
  db.run(`CREATE TABLE IF NOT EXISTS rows (
            type TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (type, id))`)
  db.run(`CREATE TABLE IF NOT EXISTS state (
            only INTEGER PRIMARY KEY CHECK (only = 1), source TEXT NOT NULL, cursor TEXT NOT NULL, updated_at TEXT NOT NULL)`)

  db.run(`CREATE TABLE IF NOT EXISTS rechecks (
            type TEXT NOT NULL, id TEXT NOT NULL, due_at INTEGER NOT NULL, PRIMARY KEY (type, id)) WITHOUT ROWID`)

  const upsert = db.prepare("INSERT INTO rows (type, id, json) VALUES (?, ?, ?) ON CONFLICT (type, id) DO UPDATE SET json = excluded.json")
  const remove = db.prepare("DELETE FROM rows WHERE type = ? AND id = ?")
  const setCursor = db.prepare(
    `INSERT INTO state (only, source, cursor, updated_at) VALUES (1, ?, ?, ?)
     ON CONFLICT (only) DO UPDATE SET source = excluded.source, cursor = excluded.cursor, updated_at = excluded.updated_at`
  )
  const readState = db.prepare<{ source: string; cursor: string }, []>("SELECT source, cursor FROM state WHERE only = 1")
  const storeCursor = (cursor: string) => setCursor.run(source, cursor, new Date().toISOString())

  const addRecheck = db.prepare(
    "INSERT INTO rechecks (type, id, due_at) VALUES (?, ?, ?) ON CONFLICT (type, id) DO UPDATE SET due_at = max(due_at, excluded.due_at)"
  )
  const dropRecheck = db.prepare("DELETE FROM rechecks WHERE type = ? AND id = ?")
  const dueRechecks = db.prepare<{ type: string; id: string }, [number]>("SELECT type, id FROM rechecks WHERE due_at <= ? ORDER BY due_at LIMIT 1000")
  const nextRecheck = db.prepare<{ due_at: number | null }, []>("SELECT min(due_at) AS due_at FROM rechecks")

  const apply = db.transaction((rows: ReadonlyArray<StoredRow>, cursor: string | undefined) => {
    for (const row of rows) {
      if (cursor === undefined) dropRecheck.run(row.type, row.id)
      if (row.json === undefined) remove.run(row.type, row.id)
      else upsert.run(row.type, row.id, row.json)
      if (row.recheckAt !== undefined) addRecheck.run(row.type, row.id, row.recheckAt)
    }
    if (cursor !== undefined) storeCursor(cursor)
  })

  return {
    source: () => readState.get()?.source,
    cursor: () => readState.get()?.cursor,
    count: () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM rows").get()!.n,
    apply: (rows, cursor) => apply(rows, cursor),
    rechecks: (now) => ({ due: dueRechecks.all(now), next: nextRecheck.get()?.due_at ?? undefined }),
    beginLoad: () => {
      db.run("BEGIN IMMEDIATE")
      db.run("DELETE FROM rows")
      db.run("DELETE FROM rechecks")
      let open = true
      return {
        insert: (type, id, json) => void upsert.run(type, id, json),
        commit: (cursor) => {
          storeCursor(cursor)
          db.run("COMMIT")
          open = false
        },
        rollback: () => {
          if (open) db.run("ROLLBACK")
          open = false
        }
      }
    },
    close: () => db.close()
  }
}
