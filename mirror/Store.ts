import { Database } from "bun:sqlite"

/**
 * The mirror's file: `rows` holds, per public row, the JSON of the `data` of its public answer
 * (users keyed by username, every other type by its id), and `state` the one feed cursor the rows
 * stand at. Rows and cursor only ever change together, in one transaction.
 */
export interface Store {
  readonly source: () => string | undefined
  readonly cursor: () => string | undefined
  readonly count: () => number
  /** Applies one feed page: rows fetched (json) or gone (undefined), then its cursor, atomically. */
  readonly applyPage: (rows: ReadonlyArray<readonly [type: string, id: string, json: string | undefined]>, cursor: string) => void
  /** Starts replacing everything (a snapshot load); nothing shows until `commit`. */
  readonly beginLoad: () => Loader
  readonly close: () => void
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
            type TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (type, id)) WITHOUT ROWID`)
  db.run(`CREATE TABLE IF NOT EXISTS state (
            only INTEGER PRIMARY KEY CHECK (only = 1), source TEXT NOT NULL, cursor TEXT NOT NULL, updated_at TEXT NOT NULL)`)

  const upsert = db.prepare("INSERT INTO rows (type, id, json) VALUES (?, ?, ?) ON CONFLICT (type, id) DO UPDATE SET json = excluded.json")
  const remove = db.prepare("DELETE FROM rows WHERE type = ? AND id = ?")
  const setCursor = db.prepare(
    `INSERT INTO state (only, source, cursor, updated_at) VALUES (1, ?, ?, ?)
     ON CONFLICT (only) DO UPDATE SET source = excluded.source, cursor = excluded.cursor, updated_at = excluded.updated_at`
  )
  const readState = db.prepare<{ source: string; cursor: string }, []>("SELECT source, cursor FROM state WHERE only = 1")
  const storeCursor = (cursor: string) => setCursor.run(source, cursor, new Date().toISOString())

  const applyPage = db.transaction((rows: ReadonlyArray<readonly [string, string, string | undefined]>, cursor: string) => {
    for (const [type, id, json] of rows) {
      if (json === undefined) remove.run(type, id)
      else upsert.run(type, id, json)
    }
    storeCursor(cursor)
  })

  return {
    source: () => readState.get()?.source,
    cursor: () => readState.get()?.cursor,
    count: () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM rows").get()!.n,
    applyPage: (rows, cursor) => applyPage(rows, cursor),
    beginLoad: () => {
      db.run("BEGIN IMMEDIATE")
      db.run("DELETE FROM rows")
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
