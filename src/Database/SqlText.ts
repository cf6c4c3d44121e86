import * as Statement from "effect/sql/Statement"

/** Fixed SQL text of our own (never request text) spliced into a statement as it is. */
export const unsafeFragment = (sql: string): Statement.Fragment => Statement.fragment([Statement.literal(sql)])
