import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import type { AppConfigValues } from "../Config.js"

/**
 * The longest string a span attribute keeps, in characters: OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT,
 * else OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT (1,024 here; OpenTelemetry's own default is none). The
 * long values are statements' texts (`db.query.text`, up to ~6 KB): their first KiB names the
 * statement, and the rest made a sampled request's export several times its size.
 */
export const spanAttributeLengthOf = (telemetry: AppConfigValues["telemetry"]): number =>
  Option.getOrElse(telemetry.spanAttributeValueLengthLimit, () => telemetry.attributeValueLengthLimit)

const limited = (tracer: Tracer.Tracer, limit: number): Tracer.Tracer =>
  Tracer.make({
    span(options) {
      const span = tracer.span(options)
      const attribute = span.attribute
      span.attribute = (key, value) =>
        attribute.call(span, key, typeof value === "string" && value.length > limit ? value.slice(0, limit) : value)
      return span
    },
    context: tracer.context
  })

/** The tracer in place, its spans' string attributes cut at `limit` characters. */
export const layer = (limit: number) =>
  Layer.effect(Tracer.Tracer, Effect.map(Effect.service(Tracer.Tracer), (tracer) => limited(tracer, limit)))
