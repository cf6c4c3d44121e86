import * as Schema from "effect/Schema"

export const MAX_INT4 = 2_147_483_647

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Half of a UTF-16 pair without the other half: no UTF-8 encodes it. */
export const hasLoneSurrogate = (text: string) => LONE_SURROGATE.test(text)

const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/

/**
 * Text the router could not percent-decode (`%FF`, `%ED%A0%80`: not UTF-8): it passes such a
 * value on as sent, escapes and all, rather than failing the request.
 */
const isUndecoded = (text: string) => {
  if (!PERCENT_ESCAPE.test(text)) return false
  try {
    decodeURIComponent(text)
    return false
  } catch {
    return true
  }
}

/** Text PostgreSQL can take as a parameter (no NUL, no lone surrogate) and that was valid UTF-8 on the wire. */
export const isDatabaseText = (text: string) => !text.includes("\u0000") && !hasLoneSurrogate(text) && !isUndecoded(text)

/** Any text parameter: a bad_request naming `name` when it is not text the database can take. */
export const TextParam = (name: string) => {
  const message = () => `${name} must be valid UTF-8 text without NUL characters.`
  return Schema.String.pipe(Schema.filter(isDatabaseText, { message }))
}

/**
 * Decimal digits only, checked as text before conversion: NumberFromString alone would take
 * `1e3`, `0x10`, `4242.0`, `012` and ` 12`, and an id past int4 would make Postgres fail. The OpenAPI
 * document says what the text must be, an integer in range, so that generated clients take numbers.
 */
const wholeNumberText = (
  name: string,
  pattern: RegExp,
  min: number,
  max: number,
  doc: { readonly description?: string; readonly default?: number } = {}
) => {
  const message = () => `${name} must be a whole number from ${min} to ${max}.`
  const description = doc.description ?? `Whole number from ${min} to ${max}.`
  return Schema.String.pipe(
    Schema.pattern(pattern, { message }),
    Schema.compose(Schema.NumberFromString),
    Schema.filter((n) => Number.isSafeInteger(n) && n >= min && n <= max, { message }),
    Schema.annotations({
      message,
      description,
      jsonSchema: { type: "integer", minimum: min, maximum: max, ...doc, description },
      arbitrary: () => (fc) => fc.integer({ min, max })
    })
  )
}

/** An integer id in a path or query: `^[1-9][0-9]*$`, at most 2^31-1. */
export const IdParam = (name: string, description = `An id: a whole number from 1 to ${MAX_INT4}.`) =>
  wholeNumberText(name, /^[1-9][0-9]{0,9}$/, 1, MAX_INT4, { description })

export const DEFAULT_LIMIT = 20

export const LimitParam = wholeNumberText("limit", /^[1-9][0-9]{0,1}$/, 1, 80, {
  default: DEFAULT_LIMIT,
  description: `Items per page, 1 to 80 (default ${DEFAULT_LIMIT}).`
})
export const OffsetParam = wholeNumberText("offset", /^(0|[1-9][0-9]{0,9})$/, 0, MAX_INT4, {
  default: 0,
  description: "How many items to skip (default 0); a cursor replaces it."
})
export const FeedLimitParam = wholeNumberText("limit", /^[1-9][0-9]{0,3}$/, 1, 1000, {
  default: 100,
  description: "Changes per page, 1 to 1000 (default 100)."
})

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
      description: `One of: ${words.join(", ")}.`,
      arbitrary: () => (fc) => fc.constantFrom(...(words as ReadonlyArray<Words[number]>))
    })
  ).annotations({ arbitrary: () => (fc) => fc.constantFrom(...words) })
}

export const OrderParam = ChoiceParam("order", "asc", "desc")

/** Cursors are base64url text; the cursor check refuses longer ones. */
export const MAX_CURSOR_LENGTH = 2048

/** `ids=1,2,3`: 1 to `max` ids, each as strict as an id in a path; a repeated id counts once. */
export const IdListParam = (max: number) => {
  const message = () => `ids must be 1 to ${max} comma-separated ids, each a whole number from 1 to ${MAX_INT4}.`
  const description = `Ids, 1 to ${max} of them, comma-separated (ids=12,40): the list items of those that are public, ` +
    "in the order asked (a repeated id once, at its first place); meta.total is the number found. Not with other parameters."
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
      description,
      jsonSchema: {
        type: "array",
        items: { type: "integer", minimum: 1, maximum: MAX_INT4 },
        minItems: 1,
        maxItems: max,
        description
      },
      arbitrary: () => (fc) => fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: max })
    })
  )
}

/** `limit`, `offset` and `cursor` of every paginated list (docs/api.md, Pagination). */
export const PageParams = {
  limit: Schema.optional(LimitParam),
  offset: Schema.optional(OffsetParam),
  cursor: Schema.optional(
    // checked whole by the cursor codec (src/Domain/Cursor.ts), which has one message for any bad cursor
    Schema.String.annotations({
      jsonSchema: {
        type: "string",
        minLength: 1,
        maxLength: MAX_CURSOR_LENGTH,
        description: "The opaque token from a previous page's meta.next_cursor (same endpoint, sort and filters); " +
          "when given it replaces offset."
      }
    })
  )
}
