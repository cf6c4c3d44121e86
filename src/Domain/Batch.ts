import * as SqlClient from "effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { ListMeta } from "./Envelope.js"
import { BadRequest } from "./Errors.js"
import { pageJson } from "./Json.js"
import { jsonArraySql } from "./JsonSql.js"
import { unsafeFragment } from "../Database/SqlText.js"

export const MAX_BATCH_IDS = 50

/** A page of a list: its items as JSON that Postgres built, and its meta. */
interface ListPage {
  readonly itemsJson: string
  readonly meta: ListMeta
}

/**
 * `ids=` lookups of /v1/songs, /v1/albums and /v1/artists: the list items of the asked public
 * rows in the order asked (each id once, at its first place), in one statement. `source` and
 * `item` are a list's own fixed SQL (its public view and item JSON), never request text.
 */
export const batchLookup = (source: string, alias: string, item: string, ids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const lit = unsafeFragment
    const rows = yield* sql<{ total: number; json: string }>`
      WITH asked AS (
        SELECT x.id::int AS id, x.ord FROM unnest(string_to_array(${ids.join(",")}::text, ',')) WITH ORDINALITY AS x(id, ord))
      SELECT count(*)::int AS total,
        ${lit(jsonArraySql(item, "asked.ord"))}::text AS json
      FROM asked JOIN ${lit(source)} ON ${lit(alias)}.id = asked.id`.pipe(Effect.orDie)
    const row = rows[0] ?? { total: 0, json: "[]" }
    const meta: ListMeta = { total: row.total, limit: ids.length, offset: 0, next_cursor: "" }
    return { itemsJson: row.json, meta }
  })

/** `ids` stands alone: with a cursor, offset, limit, sort, order or a filter it is a bad_request. */
export const idsAlone = (others: Record<string, unknown>) => {
  const given = Object.entries(others).filter(([, value]) => value !== undefined).map(([name]) => name)
  return given.length === 0
    ? Effect.void
    : Effect.fail(new BadRequest({ message: `ids cannot be combined with ${given.join(", ")}: it returns the asked rows only.` }))
}

/**
 * A browse list that also answers `ids=` (/v1/songs, /v1/albums, /v1/artists): the asked rows when
 * `ids` is given, alone (idsAlone), else the browse of the other parameters.
 */
export const browseOrIds = <
  P extends { readonly ids?: ReadonlyArray<number> | undefined },
  E1,
  R1,
  E2,
  R2
>(
  urlParams: P,
  browse: (others: Omit<P, "ids">) => Effect.Effect<ListPage, E1, R1>,
  byIds: (ids: ReadonlyArray<number>) => Effect.Effect<ListPage, E2, R2>
) => {
  const { ids, ...others } = urlParams
  const page: Effect.Effect<ListPage, E1 | E2 | BadRequest, R1 | R2> =
    ids === undefined ? browse(others) : Effect.andThen(idsAlone(others), byIds(ids))
  return Effect.map(page, pageJson)
}
