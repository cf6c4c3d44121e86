import * as Effect from "effect/Effect"
import * as References from "effect/References"
import type * as Tracer from "effect/Tracer"

type SpanOptions = Omit<Tracer.SpanOptions, "captureStackTrace">

/**
 * `Effect.withSpan` that costs nothing while tracing is off (no OTLP endpoint: src/Telemetry.ts).
 * Effect's own makes a no-op span and a context copy even then, and by default an `Error` per
 * call to record where the span was opened: together ~8% of an uncached song detail's CPU
 * (A/B, 2026-11-22). With tracing on it is Effect's, without the stack trace; span names say
 * where we are well enough. `options` may be a function: made only when the span is.
 */
export const withSpan = (name: string, options?: SpanOptions | (() => SpanOptions)) =>
<A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.withFiber<A, E, R>((fiber) =>
    fiber.getRef(References.TracerEnabled)
      ? Effect.withSpan(self, name, { ...(typeof options === "function" ? options() : options), captureStackTrace: false })
      : self
  )
