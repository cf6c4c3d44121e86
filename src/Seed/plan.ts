/** What a seed is asked for (options), how big each part is (the plan) and what it reports. */
import * as Data from "effect/Data"
import * as W from "./names.js"
import type { SeedTable } from "./tables.js"

export interface SeedProgressDetail {
  /** What is being generated: "reference", "members", "artists", "songs", "lists", "loves", "finish". */
  readonly phase: string
  /** Rows inserted so far, over all tables. */
  readonly rows: number
}

export interface SeedOptions {
  /** Number of songs; every other count is derived from it (see `planCatalogue`). */
  readonly songs: number
  /** RNG seed (default 1). The same seed and size give the same catalogue. */
  readonly seed?: number
  /**
   * The day the catalogue is generated for: release dates run up to it, "recent" songs fall in
   * the 30 days before it, "on this day" songs share its month and day. Only the UTC calendar
   * date is used. Default: the current date.
   */
  readonly today?: Date | string
  /** Maximum rows per INSERT statement (default 5,000). */
  readonly batchSize?: number
  /** Songs generated per chunk: one chunk is written while the next is generated (default 2,000). */
  readonly chunkSongs?: number
  /**
   * Defer foreign keys and plain secondary indexes to the end of the load (default true): they
   * are dropped and recreated with their exact definitions inside the seeding transaction.
   */
  readonly bulk?: boolean
  /** Called after every written chunk with work units done and the total. */
  readonly onProgress?: (done: number, total: number, detail: SeedProgressDetail) => void
}

export interface SeedPlan {
  readonly songs: number
  readonly artists: number
  readonly labels: number
  readonly members: number
  readonly curatedLists: number
  /** Approximate: albums are cut while walking the songs. */
  readonly albums: number
  readonly genres: number
  readonly roles: number
}

/** Derived sizes for a catalogue of `songs` songs. */
export const planCatalogue = (songs: number): SeedPlan => ({
  songs,
  artists: Math.max(200, Math.floor(songs / 4)),
  labels: Math.max(30, Math.floor(songs / 500)),
  members: Math.max(300, Math.floor(songs / 10)),
  curatedLists: Math.max(20, Math.floor(songs / 1000)),
  albums: Math.max(1, Math.floor(songs / 8)),
  genres: W.GENRES.length,
  roles: W.ROLES.length
})

export interface SeedSummary {
  readonly seed: number
  /** The generation day, YYYY-MM-DD. */
  readonly today: string
  readonly plan: SeedPlan
  /** Rows inserted per table. */
  readonly rows: Readonly<Record<SeedTable, number>>
  readonly totalRows: number
}

/** A bad option value (size, seed or date). */
export class SeedOptionsError extends Data.TaggedError("SeedOptionsError")<{ readonly message: string }> {}
