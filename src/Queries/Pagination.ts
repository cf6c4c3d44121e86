import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { badCursor, decodeCursor, encodeCursor, type KeyType, type SortKey } from "./Cursor.js"
import type { ListMeta } from "../Contract/Envelope.js"
import type { BadRequest } from "../Contract/Errors.js"
import { DEFAULT_LIMIT } from "../Contract/Params.js"

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

/**
 * Turns limit/offset/cursor into the page to serve. `scope` names the list (endpoint, sort,
 * order and filters) and `keyTypes` its sort key (value, tie-breaker): a cursor made for
 * another scope, or with a key the database would not take, is a bad_request.
 */
export const resolvePage = (
  params: PageParamsInput,
  scope: string,
  keyTypes: readonly [KeyType, KeyType]
): Effect.Effect<PageRequest, BadRequest> => {
  const limit = params.limit ?? DEFAULT_LIMIT
  if (params.cursor === undefined) {
    return Effect.succeed({ limit, offset: params.offset ?? 0, after: undefined })
  }
  return Option.match(decodeCursor(params.cursor, scope, keyTypes), {
    onNone: () => Effect.fail(badCursor),
    onSome: (cursor) => Effect.succeed({ limit, offset: cursor.offset, after: cursor.key })
  })
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
