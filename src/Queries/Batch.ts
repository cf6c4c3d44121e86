import * as SqlClient from "effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { ListMeta } from "../Contract/Envelope.js"
import { BadRequest } from "../Contract/Errors.js"
import { pageJson } from "./Json.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { unsafeFragment } from "../Database/SqlText.js"

/** A page of a list: its items as JSON that Postgres built, and its meta. */
interface ListPage {
  readonly itemsJson: string
  readonly meta: ListMeta
}

/**
 * Where asked values are looked up: a column of the list's public view with a unique index, and
 * the SQL type the values are read as. Fixed SQL of the list's own, never request text.
 */
export interface LookupKey {
  readonly column: string
  readonly type: "int" | "text"
}

export const ID_KEY: LookupKey = { column: "id", type: "int" }

/**
 * Lookups of /v1/songs, /v1/albums and /v1/artists (`ids=`, `vidsvc_id=`, ...): the list items of
 * the asked public rows in the order asked (each value once, at its first place), in one
 * statement. `source` and `item` are a list's own fixed SQL (its public view and item JSON), never
 * request text; the values were checked to hold no comma.
 */
export const batchLookup = (source: string, alias: string, item: string, key: LookupKey, values: ReadonlyArray<string | number>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const lit = unsafeFragment
    const rows = yield* sql<{ total: number; json: string }>`
      WITH asked AS (
        SELECT x.value::${lit(key.type)} AS value, x.ord FROM unnest(string_to_array(${values.join(",")}::text, ',')) WITH ORDINALITY AS x(value, ord))
      SELECT count(*)::int AS total,
        ${lit(jsonArraySql(item, "asked.ord"))}::text AS json
      FROM asked JOIN ${lit(source)} ON ${lit(alias)}.${lit(key.column)} = asked.value`
    const row = rows[0] ?? { total: 0, json: "[]" }
    const meta: ListMeta = { total: row.total, limit: values.length, offset: 0, next_cursor: "" }
    return { itemsJson: row.json, meta }
  })

/** A lookup parameter stands alone: with a cursor, offset, limit, sort, order, a filter or another lookup it is a bad_request. */
export const lookupAlone = (name: string, others: Record<string, unknown>) => {
  const given = Object.entries(others).filter(([, value]) => value !== undefined).map(([other]) => other)
  return given.length === 0
    ? Effect.void
    : Effect.fail(new BadRequest({ message: `${name} cannot be combined with ${given.join(", ")}: it returns the asked rows only.` }))
}

/**
 * A browse list that also answers lookups (/v1/songs, /v1/albums, /v1/artists): the rows a lookup
 * parameter asks for when one is given, alone (lookupAlone), else the browse of the other parameters.
 * `lookups` has one reader per lookup parameter (`ids`, and the external ids a list holds).
 */
export const browseOrLookup = <
  P extends Record<string, unknown>,
  L extends keyof P & string,
  E1,
  R1,
  E2,
  R2
>(
  urlParams: P,
  browse: (others: Omit<P, L>) => Effect.Effect<ListPage, E1, R1>,
  lookups: { readonly [K in L]: (values: NonNullable<P[K]>) => Effect.Effect<ListPage, E2, R2> }
) => {
  const names = Object.keys(lookups) as Array<L>
  const asked = names.find((name) => urlParams[name] !== undefined)
  const others = Object.fromEntries(Object.entries(urlParams).filter(([name]) => !names.includes(name as L)))
  const page: Effect.Effect<ListPage, E1 | E2 | BadRequest, R1 | R2> = asked === undefined
    ? browse(others as Omit<P, L>)
    : Effect.andThen(
      lookupAlone(asked, Object.fromEntries(Object.entries(urlParams).filter(([name]) => name !== asked))),
      lookups[asked](urlParams[asked] as NonNullable<P[L]>)
    )
  return Effect.map(page, pageJson)
}
