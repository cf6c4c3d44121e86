import * as Schema from "effect/Schema"

/** `meta` of every list (docs/api.md, Pagination). `next_cursor` is "" on the last page. */
export const ListMeta = Schema.Struct({
  total: Schema.Int,
  limit: Schema.Int,
  offset: Schema.Int,
  next_cursor: Schema.String
}).annotations({ identifier: "ListMeta" })
export type ListMeta = typeof ListMeta.Type

export const ListEnvelope = <A, I, R>(item: Schema.Schema<A, I, R>, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), meta: ListMeta }).annotations({ identifier })

export const DetailEnvelope = <A, I, R>(item: Schema.Schema<A, I, R>, identifier: string) =>
  Schema.Struct({ data: item }).annotations({ identifier })
