import * as Schema from "effect/Schema"

export const MAX_INT4 = 2_147_483_647

/**
 * Decimal digits only, checked as text before conversion: NumberFromString alone would take
 * `1e3`, `0x10`, `4242.0`, `012` and ` 12`, and an id past int4 would make Postgres fail (D2).
 */
const wholeNumberText = (name: string, pattern: RegExp, min: number, max: number) => {
  const message = () => `${name} must be a whole number from ${min} to ${max}.`
  return Schema.String.pipe(
    Schema.pattern(pattern, { message }),
    Schema.compose(Schema.NumberFromString),
    Schema.filter((n) => Number.isSafeInteger(n) && n >= min && n <= max, { message }),
    Schema.annotations({ message, description: `Whole number from ${min} to ${max}.` })
  )
}

/** An integer id in a path or query: `^[1-9][0-9]*$`, at most 2^31-1. */
export const IdParam = (name: string) => wholeNumberText(name, /^[1-9][0-9]{0,9}$/, 1, MAX_INT4)

export const LimitParam = wholeNumberText("limit", /^[1-9][0-9]{0,1}$/, 1, 80)
export const FeedLimitParam = wholeNumberText("limit", /^[1-9][0-9]{0,3}$/, 1, 1000)
export const OffsetParam = wholeNumberText("offset", /^(0|[1-9][0-9]{0,9})$/, 0, MAX_INT4)

/**
 * A closed set of words, with a message that lists them. A refined string rather than a
 * literal union: `Schema.optional` merges a union with `undefined` and loses its message.
 */
export const ChoiceParam = <const Words extends ReadonlyArray<string>>(name: string, ...words: Words) => {
  const message = () => `${name} must be one of: ${words.join(", ")}.`
  return Schema.String.pipe(
    Schema.filter((text): text is Words[number] => words.includes(text), {
      message,
      jsonSchema: { enum: words },
      description: `One of: ${words.join(", ")}.`
    })
  )
}

export const OrderParam = ChoiceParam("order", "asc", "desc")

/** `ids=1,2,3`: 1 to `max` ids, each as strict as an id in a path; a repeated id counts once. */
export const IdListParam = (max: number) => {
  const message = () => `ids must be 1 to ${max} comma-separated ids, each a whole number from 1 to ${MAX_INT4}.`
  return Schema.String.pipe(
    Schema.pattern(/^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9})*$/, { message }),
    Schema.transform(Schema.Array(Schema.Number), {
      strict: true,
      decode: (text) => [...new Set(text.split(",").map(Number))],
      encode: (ids) => ids.join(",")
    }),
    Schema.filter((ids) => ids.length >= 1 && ids.length <= max && ids.every((id) => id <= MAX_INT4), { message }),
    Schema.annotations({
      message,
      description: `Comma-separated ids, 1 to ${max}: the list items of those that are public, in the order asked ` +
        "(a repeated id once, at its first place); meta.total is the number found. Not with other parameters."
    })
  )
}

/** `limit`, `offset` and `cursor` of every paginated list (D1). */
export const PageParams = {
  limit: Schema.optional(LimitParam),
  offset: Schema.optional(OffsetParam),
  cursor: Schema.optional(
    Schema.String.annotations({ description: "Opaque token from meta.next_cursor; replaces offset." })
  )
}

export const DEFAULT_LIMIT = 20
