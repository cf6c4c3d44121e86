import * as Effect from "effect/Effect"
import * as References from "effect/References"
import type * as Tracer from "effect/Tracer"

type SpanOptions = Omit<Tracer.SpanOptions, "captureStackTrace">

/**
 * `Effect.withSpan` that costs nothing outside a sampled request: Effect's tracer is switched on
 * only while one runs (src/Telemetry.ts, src/Http/Pipeline.ts). Effect's own makes a no-op span
 * and a context copy even then, and by default an `Error` per call to record where the span was
 * opened: together ~8% of an uncached song detail's CPU (A/B, 2026-11-22). Under a sampled
 * request it is Effect's, without the stack trace; span names say where we are well enough.
 * `options` may be a function: made only when the span is.
 */
export const withSpan = (name: string, options?: SpanOptions | (() => SpanOptions)) =>
<A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.withFiber<A, E, R>((fiber) =>
    fiber.getRef(References.TracerEnabled)
      ? Effect.withSpan(self, name, { ...(typeof options === "function" ? options() : options), captureStackTrace: false })
      : self
  )
