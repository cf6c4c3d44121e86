import { makeCursorSeal } from "../../src/Changes/CursorSeal.js"
import { feedCursor } from "../../src/Changes/FeedCursor.js"

/**
 * The cursor `cursor` would have been had the replica that issued it had a clock `ms` ahead of
 * this machine's: the same positions, its horizon `ms` from now. Sealed under the database's secret (`change_feed_origin.cursor_key`,
 * hex), as any replica of that database seals.
 */
export const withHorizonAhead = (cursor: string, secretHex: string, ms: number): string => {
  const cursors = feedCursor(makeCursorSeal(Buffer.from(secretHex, "hex")))
  const position = cursors.decode(cursor)
  if (position === undefined) throw new Error("not a cursor of this database")
  return cursors.encode({ ...position, horizon: (Date.now() + ms) * 1000 })
}

export const CURSOR_SECRET_SQL = "SELECT encode(cursor_key, 'hex') AS key FROM change_feed_origin"
