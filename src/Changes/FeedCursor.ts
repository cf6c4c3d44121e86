/**
 * The change feed's cursor: a feed position, named and versioned, sealed (./CursorSeal.ts).
 *
 *   version 2 (written): {"v":2,"xid":"812","position":"3","dueAt":1764400000000000,...}, every
 *     field of FeedPosition by name
 *   version 1 (read only): base64url of {"s":"changes","o":0,"k":[xid, position, dueAt, ...]}, the
 *     fields in POSITION_FIELDS' order; the log is kept whole, so a cursor ever handed out stays valid
 *
 * Anything else (another version, a field missing or of the wrong kind, bytes not sealed under this
 * database's secret) decodes to nothing, which the feed answers as bad_request.
 */
import * as Option from "effect/Option"
import { acceptsKey, decodeCursor, type KeyType, parseJsonObject } from "../Queries/Cursor.js"
import type { CursorSeal } from "./CursorSeal.js"

/**
 * Where a reader stands: the immediate stream by (xid, position) of the last touch read, the due
 * stream by (due_at, kind, row_key) of the last due touch read, and the horizon its rows were
 * judged at. Times are microseconds since 1970, xids and positions decimal text (64-bit).
 */
export interface FeedPosition {
  readonly xid: string
  readonly position: string
  readonly dueAt: number
  readonly dueKind: string
  readonly dueKey: string
  readonly horizon: number
  /**
   * The late stream by (xid, due_at, kind, row_key): due touches the due stream passed while their
   * writer was still running (it committed after a reader's horizon passed their time). Every
   * such touch not yet served lies after this position.
   */
  readonly lateXid: string
  readonly lateDueAt: number
  readonly lateKind: string
  readonly lateKey: string
}

export const FEED_CURSOR_VERSION = 2

/** Each field and what PostgreSQL takes for it, in version 1's positional order. */
const POSITION_FIELDS = {
  xid: "xid",
  position: "position",
  dueAt: "micros",
  dueKind: "text",
  dueKey: "text",
  horizon: "micros",
  lateXid: "xid",
  lateDueAt: "micros",
  lateKind: "text",
  lateKey: "text"
} as const satisfies Record<keyof FeedPosition, KeyType>

const FIELD_NAMES = Object.keys(POSITION_FIELDS) as ReadonlyArray<keyof FeedPosition>

/** A position from values checked against POSITION_FIELDS; a due time is at most one microsecond past the horizon (the due stream read to its end). */
const positionOf = (value: (field: keyof FeedPosition) => unknown): FeedPosition | undefined => {
  if (!FIELD_NAMES.every((field) => acceptsKey[POSITION_FIELDS[field]](value(field)))) return undefined
  const position = Object.fromEntries(FIELD_NAMES.map((field) => [field, value(field)])) as unknown as FeedPosition
  return position.dueAt <= position.horizon + 1 ? position : undefined
}

const decodeNamed = (text: string): FeedPosition | undefined => {
  const fields = parseJsonObject(text)
  return fields?.v === FEED_CURSOR_VERSION ? positionOf((field) => fields[field]) : undefined
}

const decodePositional = (text: string): FeedPosition | undefined =>
  Option.match(decodeCursor(text, "changes", FIELD_NAMES.map((field) => POSITION_FIELDS[field])), {
    onNone: () => undefined,
    onSome: ({ key }) => positionOf((field) => key[FIELD_NAMES.indexOf(field)])
  })

/** The text a position is sealed as: the version, then every field by name, always in the same order. */
export const feedPositionText = (position: FeedPosition) =>
  JSON.stringify({ v: FEED_CURSOR_VERSION, ...Object.fromEntries(FIELD_NAMES.map((field) => [field, position[field]])) })

/** The position a sealed text names, either version; undefined for anything else. */
export const feedPositionOf = (text: string): FeedPosition | undefined =>
  text.startsWith("{") ? decodeNamed(text) : decodePositional(text)

/** Cursors sealed under one database's secret. */
export const feedCursor = (seal: CursorSeal) => ({
  encode: (position: FeedPosition): string => seal.seal(feedPositionText(position)),
  decode: (cursor: string): FeedPosition | undefined => {
    const text = seal.open(cursor)
    return text === undefined ? undefined : feedPositionOf(text)
  }
})
export type FeedCursor = ReturnType<typeof feedCursor>
