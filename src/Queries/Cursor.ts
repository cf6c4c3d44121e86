/**
 * The one cursor codec of every paginated list. A cursor is base64url JSON a client can forge,
 * so decoding accepts only what PostgreSQL accepts for the list's key columns; anything else
 * is a bad_request with one message, never a failing statement.
 */
import * as Option from "effect/Option"
import { BadRequest } from "../Contract/Errors.js"
import { hasLoneSurrogate, MAX_INT4 } from "../Contract/Params.js"

/** How SQL casts a cursor's key value back, and so what a key value may be. */
export type KeyType = "id" | "int" | "bigint" | "text" | "date" | "dateOrEmpty" | "timestamptz" | "xid" | "position" | "micros"

/** A sort key of the last row served: the sort value then the tie-breaker. */
export type SortKey = readonly [string | number, string | number]

/** Any key a cursor carries: a list's SortKey, or a longer position (the change feed's). */
export type CursorKey = ReadonlyArray<string | number>

/** What a cursor carries: the list it was made for (endpoint, sort, filters), the next page's position, the last key. */
export interface Cursor<K extends CursorKey> {
  readonly offset: number
  readonly key: K
}

const MIN_INT4 = -2_147_483_648
const MAX_TEXT_KEY = 1000
const MAX_CURSOR = 2048

const isWholeIn = (min: number, max: number) => (value: unknown): boolean =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max

/** Decimal text of an unsigned integer below `bound` (64-bit values do not fit a JSON number). */
const isDecimalBelow = (bound: bigint) => (value: unknown): boolean =>
  typeof value === "string" && /^(0|[1-9][0-9]{0,19})$/.test(value) && BigInt(value) < bound

const isKeyText = (value: unknown): boolean =>
  typeof value === "string" && value.length <= MAX_TEXT_KEY && !value.includes("\u0000") && !hasLoneSurrogate(value)

/** YYYY-MM-DD of a day that exists, year 1 to 9999 (JavaScript takes Feb 30 and year 0; PostgreSQL does not). */
const isCalendarDate = (text: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** The instant form of timestampKeyJson: YYYY-MM-DDTHH:MM:SS.ffffffZ. */
const isInstant = (value: unknown): boolean => {
  if (typeof value !== "string") return false
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/.exec(value)
  return match !== null && isCalendarDate(match[1]!) && Number(match[2]) <= 23 && Number(match[3]) <= 59 &&
    Number(match[4]) <= 59
}

export const acceptsKey: Record<KeyType, (value: unknown) => boolean> = {
  id: isWholeIn(1, MAX_INT4),
  int: isWholeIn(MIN_INT4, MAX_INT4),
  bigint: isWholeIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  text: isKeyText,
  date: (value) => typeof value === "string" && isCalendarDate(value),
  // an album's sort date, "" when it has none (compared as text)
  dateOrEmpty: (value) => value === "" || (typeof value === "string" && isCalendarDate(value)),
  timestamptz: isInstant,
  // the change feed's position: a transaction id (xid8), a log position (bigint), microseconds since 1970
  xid: isDecimalBelow(2n ** 64n),
  position: isDecimalBelow(2n ** 63n),
  micros: isWholeIn(0, Number.MAX_SAFE_INTEGER)
}

export const badCursor = new BadRequest({
  message: "cursor is not valid for this list; use the meta.next_cursor of the same endpoint, sort and filters."
})

interface Payload {
  readonly s: string
  readonly o: number
  readonly k: ReadonlyArray<unknown>
}

/** The JSON object `text` holds; undefined for other JSON or none. */
export const parseJsonObject = (text: string): Record<string, unknown> | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

/** `{"s": scope, "o": offset, "k": [key...]}` (other members ignored); checked by hand, as it is on every cursor page. */
const parsePayload = (text: string): Payload | undefined => {
  const { s, o, k } = parseJsonObject(text) ?? {}
  return typeof s === "string" && typeof o === "number" && Array.isArray(k) ? { s, o, k } : undefined
}

export const encodeCursor = (scope: string, offset: number, key: CursorKey): string =>
  Buffer.from(JSON.stringify({ s: scope, o: offset, k: key })).toString("base64url")

/**
 * The cursor, when it was made for `scope` (endpoint, sort, order and filters) and its key has
 * the list's `keyTypes` (for a list: sort value, tie-breaker); None otherwise.
 */
export const decodeCursor = <const Types extends ReadonlyArray<KeyType>>(
  cursor: string,
  scope: string,
  keyTypes: Types
): Option.Option<Cursor<{ readonly [I in keyof Types]: string | number }>> => {
  if (cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) return Option.none()
  const payload = parsePayload(Buffer.from(cursor, "base64url").toString("utf8"))
  if (
    payload === undefined || payload.s !== scope || !isWholeIn(0, MAX_INT4)(payload.o) ||
    payload.k.length !== keyTypes.length || !keyTypes.every((type, i) => acceptsKey[type](payload.k[i]))
  ) {
    return Option.none()
  }
  return Option.some({ offset: payload.o, key: payload.k as unknown as { readonly [I in keyof Types]: string | number } })
}
