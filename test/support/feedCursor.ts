import { makeCursorSeal } from "../../src/Changes/CursorSeal.js"

/** The feed cursor's key: (xid, position, due_at, due_kind, due_key, horizon, late stream...); times in microseconds. */
const HORIZON = 5

/**
 * The cursor `cursor` would have been had the replica that issued it had a clock `ms` ahead of
 * this machine's: the same positions, its horizon `ms` from now. Sealed under the database's secret (`change_feed_origin.cursor_key`,
 * hex), as any replica of that database seals.
 */
export const withHorizonAhead = (cursor: string, secretHex: string, ms: number): string => {
  const seal = makeCursorSeal(Buffer.from(secretHex, "hex"))
  const text = seal.open(cursor)
  if (text === undefined) throw new Error("not a cursor of this database")
  const payload = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as { k: Array<string | number> }
  payload.k[HORIZON] = (Date.now() + ms) * 1000
  return seal.seal(Buffer.from(JSON.stringify(payload)).toString("base64url"))
}

export const CURSOR_SECRET_SQL = "SELECT encode(cursor_key, 'hex') AS key FROM change_feed_origin"
