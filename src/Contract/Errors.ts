import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"

/** The six error codes (docs/api.md, Errors); `code` takes no other value. */
export const ErrorCode = Schema.Literals([
  "not_found",
  "bad_request",
  "unauthorized",
  "forbidden",
  "rate_limited",
  "internal_error"
])
export type ErrorCode = typeof ErrorCode.Type

export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({ code: ErrorCode, message: Schema.String })
}).annotate({ identifier: "ErrorEnvelope" })
export type ErrorEnvelope = typeof ErrorEnvelope.Type

type ErrorClass<Self> = Schema.Codec<Self, unknown, never, never> & { new(props: { readonly message: string }): Self }

/**
 * The wire form of an error class: the envelope on the wire, the class in the handler.
 * A bare TaggedError would put `_tag` in the body; this keeps the body exactly the envelope.
 */
const wire = <Self extends { readonly message: string }, Code extends ErrorCode>(
  errorClass: ErrorClass<Self>,
  identifier: string,
  code: Code,
  status: number
) =>
  Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String }) })
    .annotate({ identifier })
    .pipe(
      Schema.decodeTo(Schema.toType(errorClass), {
        decode: SchemaGetter.transform(({ error }) => new errorClass({ message: error.message })),
        encode: SchemaGetter.transform((self: Self) => ({ error: { code, message: self.message } }))
      }),
      HttpApiSchema.status(status)
    )

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {}
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { message: Schema.String }) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", { message: Schema.String }) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { message: Schema.String }) {}
/** internal_error with 503: the database cannot be reached or did not answer in time. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", { message: Schema.String }) {}

export const NotFoundError = wire(NotFound, "NotFoundError", "not_found", 404)
export const BadRequestError = wire(BadRequest, "BadRequestError", "bad_request", 400)
export const UnauthorizedError = wire(Unauthorized, "UnauthorizedError", "unauthorized", 401)
export const ForbiddenError = wire(Forbidden, "ForbiddenError", "forbidden", 403)
export const RateLimitedError = wire(RateLimited, "RateLimitedError", "rate_limited", 429)
export const InternalServerError = wire(InternalError, "InternalServerError", "internal_error", 500)
export const UnavailableError = wire(Unavailable, "UnavailableError", "internal_error", 503)

/**
 * The errors any endpoint may answer (bad_request on decoding, not_found off a route, internal
 * errors), and the step inside every endpoint that turns any other failure into one of them
 * (src/Http/Errors.ts).
 */
export class EnvelopeErrors extends HttpApiMiddleware.Service<EnvelopeErrors>()("catalogue/EnvelopeErrors", {
  error: [BadRequestError, NotFoundError, InternalServerError, UnavailableError]
}) {}

/**
 * Every request the HttpApi cannot decode (path, query, headers) answers bad_request: the
 * framework's own seam for it (HttpApiMiddleware.layerSchemaErrorTransform, src/Http/Errors.ts).
 */
export class DecodeErrors extends HttpApiMiddleware.Service<DecodeErrors>()("catalogue/DecodeErrors", {
  error: BadRequestError
}) {}

export const notFound = (what: string) => new NotFound({ message: `${what} was not found.` })

/** What a client sent, as an error message may repeat it: at most `max` characters, then "…". */
export const echo = (text: string, max = 40) => {
  const characters = Array.from(text)
  return characters.length <= max ? text : `${characters.slice(0, max).join("")}…`
}
