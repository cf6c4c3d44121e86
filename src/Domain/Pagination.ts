import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { BadRequest } from "./Errors.js"
import { DEFAULT_LIMIT } from "./Params.js"
import type { ListMeta } from "./Envelope.js"

/** A sort key of the last row served: the sort value(s) then the id. */
export type SortKey = ReadonlyArray<string | number | boolean | null>

/**
 * What a cursor carries: the list it was made for (endpoint, sort, filters), the absolute
 * position of the next page, and the last row's sort key. Opaque to clients: base64url JSON.
 */
const CursorPayload = Schema.Struct({
  s: Schema.String,
  o: Schema.Int.pipe(Schema.nonNegative()),
  k: Schema.Array(Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null))
})
const decodePayload = Schema.decodeUnknownOption(Schema.parseJson(CursorPayload))

export interface PageRequest {
  readonly limit: number
  readonly offset: number
  /** Set when a cursor was given: fetch the rows after this key instead of skipping `offset`. */
  readonly after: SortKey | undefined
}

export interface PageParamsInput {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly cursor?: string | undefined
}

export const encodeCursor = (scope: string, offset: number, key: SortKey): string =>
  Buffer.from(JSON.stringify({ s: scope, o: offset, k: key })).toString("base64url")

const badCursor = new BadRequest({
  message: "cursor is not valid for this list; use the meta.next_cursor of the same endpoint, sort and filters."
})

/**
 * Turns limit/offset/cursor into the page to serve. `scope` names the list (endpoint, sort,
 * order and filters): a cursor made for another scope is a bad_request (D1).
 */
export const resolvePage = (params: PageParamsInput, scope: string): Effect.Effect<PageRequest, BadRequest> => {
  const limit = params.limit ?? DEFAULT_LIMIT
  if (params.cursor === undefined) {
    return Effect.succeed({ limit, offset: params.offset ?? 0, after: undefined })
  }
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(params.cursor)) return Effect.fail(badCursor)
  const payload = decodePayload(Buffer.from(params.cursor, "base64url").toString("utf8"))
  if (payload._tag === "None" || payload.value.s !== scope) return Effect.fail(badCursor)
  return Effect.succeed({ limit, offset: payload.value.o, after: payload.value.k })
}

/** meta for a served page; `lastKey` is the sort key of the page's last row, if any. */
export const pageMeta = (
  page: PageRequest,
  scope: string,
  total: number,
  served: number,
  lastKey: SortKey | undefined
): ListMeta => {
  const nextOffset = page.offset + served
  const hasNext = served === page.limit && nextOffset < total && lastKey !== undefined
  return {
    total,
    limit: page.limit,
    offset: page.offset,
    next_cursor: hasNext ? encodeCursor(scope, nextOffset, lastKey) : ""
  }
}
