import * as Schema from "effect/Schema"

/** `meta` of every list (docs/api.md, Pagination). `next_cursor` is "" on the last page. */
export const ListMeta = Schema.Struct({
  total: Schema.Int,
  limit: Schema.Int,
  offset: Schema.Int,
  next_cursor: Schema.String
}).annotate({ identifier: "ListMeta" })
export type ListMeta = typeof ListMeta.Type

export const ListEnvelope = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), meta: ListMeta }).annotate({ identifier })

export const DetailEnvelope = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({ data: item }).annotate({ identifier })
