import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"

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

/**
 * How a test draws valid values of a parameter (test/support/samples.ts reads it): the checks are
 * too strict for random text to pass them by chance.
 */
export type Sample =
  | { readonly kind: "integer"; readonly min: number; readonly max: number }
  | { readonly kind: "choice"; readonly words: ReadonlyArray<string> }
  | { readonly kind: "pattern"; readonly pattern: RegExp }
  | { readonly kind: "set"; readonly of: Sample; readonly max: number }

type JsonSchema = { readonly [key: string]: unknown }

/**
 * The OpenAPI document describes a parameter by what it must be (`jsonSchema`: an integer in range,
 * an array of ids, an enum), not by the text it travels as; OpenApiDocument.ts puts it in place.
 */
const described = (jsonSchema: JsonSchema) => ({ toJsonSchema: () => ({ ...jsonSchema }) })

/** A wire text, a bad_request with the message `problem` finds in it, if any. */
export const CheckedText = (problem: (text: string) => string | undefined, jsonSchema: JsonSchema, sample?: Sample) =>
  Schema.String.check(Schema.makeFilter((text: string) => problem(text), described(jsonSchema)))
    .annotate(sample === undefined ? {} : { sample })

const checkedText = (accepts: (text: string) => boolean, message: string, jsonSchema: JsonSchema, sample?: Sample) =>
  CheckedText((text) => (accepts(text) ? undefined : message), jsonSchema, sample)

/** Any text, described to clients as `jsonSchema` says; checked elsewhere, if at all. */
export const DocumentedText = (jsonSchema: JsonSchema) => Schema.String.check(Schema.makeFilter(() => true, described(jsonSchema)))

/** Any text parameter: a bad_request naming `name` when it is not text the database can take. */
export const TextParam = (name: string, jsonSchema: JsonSchema = { type: "string" }) =>
  checkedText(isDatabaseText, `${name} must be valid UTF-8 text without NUL characters.`, jsonSchema)

const numberFromText = {
  decode: SchemaGetter.transform((text: string) => Number(text)),
  encode: SchemaGetter.transform((n: number) => String(n))
}

/**
 * Decimal digits only, checked as text before conversion: a number parser alone would take
 * `1e3`, `0x10`, `4242.0`, `012` and ` 12` (and Effect 4's NumberFromString even `abc`, as NaN),
 * and an id past int4 would make Postgres fail. The OpenAPI document says what the text must be,
 * an integer in range, so that generated clients take numbers.
 */
export const wholeNumberText = (
  name: string,
  pattern: RegExp,
  min: number,
  max: number,
  doc: { readonly description?: string; readonly default?: number; readonly message?: string } = {}
) => {
  const { message = `${name} must be a whole number from ${min} to ${max}.`, ...documented } = doc
  const description = doc.description ?? `Whole number from ${min} to ${max}.`
  const fits = (text: string) => {
    if (!pattern.test(text)) return false
    const n = Number(text)
    return Number.isSafeInteger(n) && n >= min && n <= max
  }
  return checkedText(fits, message, { type: "integer", minimum: min, maximum: max, ...documented, description }, {
    kind: "integer",
    min,
    max
  }).pipe(Schema.decodeTo(Schema.Number, numberFromText))
}

/** An integer id in a path or query: `^[1-9][0-9]*$`, at most 2^31-1. */
export const IdParam = (name: string, description = `An id: a whole number from 1 to ${MAX_INT4}.`) =>
  wholeNumberText(name, /^[1-9][0-9]{0,9}$/, 1, MAX_INT4, { description })

export const DEFAULT_LIMIT = 20

/** The most values one lookup (`ids=`, `vidsvc_id=`, ...) may ask for. */
export const MAX_BATCH_IDS = 50

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

/** A closed set of words, with a message that lists them: a refined string, not a literal union. */
export const ChoiceParam = <const Words extends ReadonlyArray<string>>(name: string, ...words: Words) =>
  DescribedChoiceParam(name, `One of: ${words.join(", ")}.`, ...words)

/** A closed set of words, described to clients in words of its own. */
export const DescribedChoiceParam = <const Words extends ReadonlyArray<string>>(
  name: string,
  description: string,
  ...words: Words
) => {
  const message = `${name} must be one of: ${words.join(", ")}.`
  return Schema.String.pipe(
    Schema.refine((text): text is Words[number] => words.includes(text), {
      message,
      ...described({ type: "string", enum: words, description })
    })
  ).annotate({ sample: { kind: "choice", words } satisfies Sample })
}

export const OrderParam = ChoiceParam("order", "asc", "desc")

/** Cursors are base64url text; the cursor check refuses longer ones. */
export const MAX_CURSOR_LENGTH = 2048

/**
 * A comma-separated set of values (`ids=1,2,3`, `types=songs,artists`): text matching `pattern`,
 * each value once at its first place, 1 to `max` of them.
 */
export const CommaSetParam = <A>(options: {
  readonly pattern: RegExp
  readonly max: number
  readonly value: (text: string) => A
  readonly fits: (value: A) => boolean
  readonly message: string
  readonly jsonSchema: JsonSchema
  readonly sample: Sample
}) => {
  const values = (text: string) => [...new Set(text.split(",").map(options.value))]
  const accepts = (text: string) => {
    if (!options.pattern.test(text)) return false
    const decoded = values(text)
    return decoded.length >= 1 && decoded.length <= options.max && decoded.every(options.fits)
  }
  return checkedText(accepts, options.message, options.jsonSchema, { kind: "set", of: options.sample, max: options.max }).pipe(
    Schema.decodeTo(Schema.Array(Schema.declare((_: unknown): _ is A => true)), {
      decode: SchemaGetter.transform(values),
      encode: SchemaGetter.transform((list: ReadonlyArray<A>) => list.join(","))
    })
  )
}

/** `ids=1,2,3`: 1 to `max` ids, each as strict as an id in a path; a repeated id counts once. */
export const IdListParam = (max: number, description?: string) => {
  const message = `ids must be 1 to ${max} comma-separated ids, each a whole number from 1 to ${MAX_INT4}.`
  return CommaSetParam({
    pattern: /^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9})*$/,
    max,
    value: Number,
    fits: (id) => id <= MAX_INT4,
    message,
    jsonSchema: {
      type: "array",
      items: { type: "integer", minimum: 1, maximum: MAX_INT4 },
      minItems: 1,
      maxItems: max,
      description: description ?? `Ids, 1 to ${max} of them, comma-separated (ids=12,40): the list items of those that are public, ` +
        "in the order asked (a repeated id once, at its first place); meta.total is the number found. Not with other parameters."
    },
    sample: { kind: "integer", min: 1, max: 200 }
  })
}

/** An id another service gave a row (a video or track id): letters, digits, `-` and `_`. */
export const EXTERNAL_ID = /^[A-Za-z0-9_-]{1,64}$/

/**
 * `vidsvc_id=a,b`: 1 to `max` external ids, each 1 to 64 letters, digits, `-` or `_`; a repeated
 * id counts once. `what` names the ids in the description (`video ids`).
 */
export const ExternalIdListParam = (name: string, max: number, what: string) => {
  const message = `${name} must be 1 to ${max} comma-separated ids, each 1 to 64 letters, digits, "-" or "_".`
  return CommaSetParam({
    pattern: /^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*$/,
    max,
    value: (text) => text,
    fits: () => true,
    message,
    jsonSchema: {
      type: "array",
      items: { type: "string", minLength: 1, maxLength: 64, pattern: EXTERNAL_ID.source },
      minItems: 1,
      maxItems: max,
      description: `${what}, 1 to ${max} of them, comma-separated: the list items of the public rows that carry them, ` +
        "in the order asked (a repeated id once, at its first place); meta.total is the number found. Not with other parameters."
    },
    sample: { kind: "pattern", pattern: /^[A-Za-z0-9_-]{1,12}$/ }
  })
}

/** `limit`, `offset` and `cursor` of every paginated list (docs/api.md, Pagination). */
export const PageParams = {
  limit: Schema.optional(LimitParam),
  offset: Schema.optional(OffsetParam),
  cursor: Schema.optional(
    // checked whole by the cursor codec (src/Queries/Cursor.ts), which has one message for any bad cursor
    DocumentedText({
      type: "string",
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description: "The opaque token from a previous page's meta.next_cursor (same endpoint, sort and filters); " +
        "when given it replaces offset."
    })
  )
}
